/**
 * Per-role model and effort reach the real vendor CLIs of detached runs:
 * with `models.rd` (and `effort.rd`) set through `peaks preferences set`, a
 * detached rd run starts the vendor with its own flags, and the vendor's
 * model requests to the stand-in name that model (and carry that effort
 * where the vendor's API request shows it).
 */
import { assert, assertEquals } from "@std/assert";
import { CLAUDE, CODEX, COPILOT, GEMINI, type HostAdapter, OPENCODE } from "./support/hosts.ts";
import { detachedBrief, returnJson, runDetached, world } from "./support/scenario.ts";
import { type Exchange, sideAnswer, text, type View } from "./support/standin.ts";

interface Case {
  host: HostAdapter;
  vendor: string;
  model: string;
  /** The model name the vendor's agent requests carry. */
  requested: string;
  effort?: string;
  /** Where the request shows the effort; absent: the request shows none (or the flag has no visible effect). */
  effortIn?: (exchange: Exchange) => unknown;
  /** The effort is not passed at all (the vendor has no flag for it). */
  effortNotPassed?: boolean;
}

const CASES: Case[] = [
  {
    host: CLAUDE,
    vendor: "claude",
    // An id claude does not know goes to the API as written.
    model: "claude-peaks-test",
    requested: "claude-peaks-test",
    effort: "high",
    effortIn: (e) => e.body?.output_config?.effort,
  },
  {
    host: CODEX,
    vendor: "codex",
    model: "gpt-peaks-test",
    requested: "gpt-peaks-test",
    effort: "high",
    effortIn: (e) => e.body?.reasoning?.effort,
  },
  // Copilot CLI (BYOK, Anthropic wire) takes --reasoning-effort, but its requests look the same.
  { host: COPILOT, vendor: "copilot", model: "claude-peaks-test", requested: "claude-peaks-test" },
  {
    host: GEMINI,
    vendor: "gemini",
    model: "gemini-peaks-test",
    requested: "gemini-peaks-test",
    effort: "high",
    effortNotPassed: true,
  },
  {
    host: OPENCODE,
    vendor: "opencode",
    // provider/model from OpenCode's catalog; its sandbox config's default is claude-sonnet-4-5.
    model: "anthropic/claude-opus-4-5",
    requested: "claude-opus-4-5",
    effort: "high",
    effortIn: (e) => e.body?.output_config?.effort,
  },
];

function answer(view: View) {
  if (view.tools.length === 0) return sideAnswer(view);
  const brief = detachedBrief(view);
  return text(brief ? `Nothing to change.\n${returnJson(brief)}` : "I got no peaks brief.");
}

for (const c of CASES) {
  Deno.test(
    `${c.vendor} detached: models.rd${c.effort ? " and effort.rd" : ""} reach the model requests`,
    { sanitizeOps: false, sanitizeResources: false },
    async () => {
      await using w = await world(c.host, answer);
      const init = await w.sandbox.peaks(["workspace", "init", "--json"]);
      assert(init.code === 0, init.stdout + init.stderr);
      const prefs = [["models.rd", c.model], ...(c.effort ? [["effort.rd", c.effort]] : [])];
      for (const [key, value] of prefs) {
        const set = await w.sandbox.peaks(
          ["preferences", "set", "--key", key, "--value", value, "--apply", "--json"],
        );
        assert(set.code === 0, set.stdout + set.stderr);
      }
      const end = await runDetached(w, [
        "rd",
        "--vendor",
        c.vendor,
        "--prompt",
        "x",
        "--timeout",
        "3m",
      ]);
      assertEquals(end.record.detached.model, c.model);
      assertEquals(end.record.detached.effort, c.effortNotPassed ? undefined : c.effort);
      const calls = w.standIn.calls().filter((call) => call.view!.tools.length > 0);
      assert(calls.length >= 1, `no agent request reached the stand-in: ${end.log.slice(-2000)}`);
      for (const call of calls) assertEquals(call.view!.model, c.requested);
      if (c.effortIn) {
        for (const call of calls) assertEquals(c.effortIn(call), c.effort);
      }
      assertEquals(end.record.status, "done", end.record.error ?? end.log.slice(-2000));
    },
  );
}

Deno.test(
  "opencode detached: a model it does not take (no provider/) fails the run with its own error",
  { sanitizeOps: false, sanitizeResources: false },
  async () => {
    await using w = await world(OPENCODE, answer);
    const init = await w.sandbox.peaks(["workspace", "init", "--json"]);
    assert(init.code === 0, init.stdout + init.stderr);
    const set = await w.sandbox.peaks(
      ["preferences", "set", "--key", "models.rd", "--value", "opus", "--apply", "--json"],
    );
    assert(set.code === 0, set.stdout + set.stderr);
    const end = await runDetached(w, ["rd", "--vendor", "opencode", "--prompt", "x"]);
    assertEquals(end.record.detached.model, "opus");
    assertEquals(end.record.status, "failed", end.log.slice(-2000));
    assert(String(end.record.error).startsWith("opencode "), end.record.error);
  },
);
