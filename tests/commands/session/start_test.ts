/**
 * `session start`: one call that anchors the workspace, claims presence and reports what the
 * startup list decides on (title, open requests, the 1.x check, the saved mode).
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { pool, runPeaks } from "../../support/cli.ts";
import { tempDir } from "../../support/temp.ts";
import { runNextAction } from "../../support/next_actions.ts";

async function peaks(cwd: string, ...args: string[]) {
  const result = await runPeaks([...args, "--json"], { cwd });
  return result;
}

async function writeText(path: string, text: string) {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

Deno.test("session start on a fresh project: workspace, presence at startup, nothing open, no mode", async () => {
  await using dir = await tempDir();
  const start = await peaks(dir.path, "session", "start", "--skill", "peaks-code");
  assertEquals(start.code, 0, start.stdout + start.stderr);
  const data = start.json.data;
  assertMatch(data.sessionId, /^\d{4}-\d{2}-\d{2}-session-[0-9a-f]{6}$/);
  assertEquals(data.session, "created");
  assertEquals(data.hasTitle, false);
  assertEquals(data.requests, []);
  assertEquals(data.upgrade1x, {
    isOneX: false,
    decision: "skip",
    decisionReason: "not a 1.x project",
  });
  assertEquals(data.swarmMode, null);
  assertEquals(data.presence, { skill: "peaks-code", mode: null, gate: "startup" });
  assertEquals(start.json.nextActions, []);
  // What the separate commands answer agrees with it.
  const info = await peaks(dir.path, "session", "info", "--active");
  assertEquals(info.json.data.sessionId, data.sessionId);
  const presence = await peaks(dir.path, "skill", "presence");
  assertEquals(presence.json.data.skill, "peaks-code");
  assertEquals(presence.json.data.gate, "startup");
  // Again: the same session, reused.
  const again = await peaks(dir.path, "session", "start");
  assertEquals(again.json.data.sessionId, data.sessionId);
  assertEquals(again.json.data.session, "reused");
});

Deno.test("session start in a later conversation: saved mode, title, open requests, the gate kept", async () => {
  await using dir = await tempDir();
  const first = await peaks(dir.path, "session", "start");
  const sid = first.json.data.sessionId;
  const steps = [
    ["preferences", "set", "--key", "swarmMode", "--value", "assisted", "--apply"],
    ["session", "title", sid, "Profile page"],
    ["request", "init", "--role", "prd", "--id", "001-done", "--type", "feature", "--apply"],
    ["request", "init", "--role", "prd", "--id", "002-open", "--type", "bugfix", "--apply"],
    ["request", "init", "--role", "rd", "--id", "002-open", "--apply"],
    ["skill", "presence:set", "peaks-code", "--gate", "rd", "--role", "rd"],
  ];
  for (const step of steps) {
    const result = await peaks(dir.path, ...step);
    assertEquals(result.code, 0, `${step.join(" ")}: ${result.stdout}`);
  }
  // 001 was closed with the user's decision: it is not listed.
  await writeText(
    `${dir.path}/.peaks/_runtime/${sid}/closed/001-done.json`,
    JSON.stringify({ rid: "001-done", decision: "committed" }),
  );
  const start = await peaks(dir.path, "session", "start");
  assertEquals(start.code, 0, start.stdout);
  const data = start.json.data;
  assertEquals(data.sessionId, sid);
  assertEquals(data.hasTitle, true);
  assertEquals(data.swarmMode, "assisted");
  assertEquals(data.requests, [{ rid: "002-open", type: "bugfix", role: "rd", state: "draft" }]);
  // A resumed skill keeps its gate; the saved mode is recorded.
  assertEquals(data.presence, { skill: "peaks-code", mode: "assisted", gate: "rd" });
});

Deno.test("session start reports a 1.x project as upgrade --detect-1x decides it", async () => {
  await using dir = await tempDir();
  await writeText(
    `${dir.path}/.peaks/preferences.json`,
    JSON.stringify({ schema_version: "1.0.0", autoUpgradePrompt: "opt-in" }),
  );
  await writeText(`${dir.path}/.peaks/.active-skill.json`, '{"skill":"peaks-solo"}');
  const start = await peaks(dir.path, "session", "start");
  assertEquals(start.code, 0, start.stdout);
  const detect = await peaks(dir.path, "upgrade", "--detect-1x");
  const { upgrade1x } = start.json.data;
  assertEquals(upgrade1x.isOneX, true);
  assertEquals(upgrade1x.decision, detect.json.data.decision);
  assertEquals(upgrade1x.decision, "auto-run");
  assert(upgrade1x.signals.length > 0);
  // auto-run: the upgrade is the next step, and it runs as written.
  assertMatch(start.json.nextActions[0], /^peaks upgrade --to 2\.0 --auto /);
  const upgraded = await runNextAction(start.json.nextActions[0], { cwd: dir.path });
  assertEquals(upgraded.code, 0, upgraded.stdout);
  const after = await peaks(dir.path, "session", "start");
  assertEquals(after.json.data.upgrade1x.isOneX, false, after.stdout);
  assertEquals(after.json.nextActions, []);
});

Deno.test("session start lists a broken request file as a warning and the others still", async () => {
  await using dir = await tempDir();
  const first = await peaks(dir.path, "session", "start");
  const sid = first.json.data.sessionId;
  await peaks(dir.path, "request", "init", "--role", "prd", "--id", "003-ok", "--apply");
  await writeText(
    `${dir.path}/.peaks/_runtime/${sid}/prd/requests/004-bad.md`,
    "\0\0not a request",
  );
  const start = await peaks(dir.path, "session", "start");
  assertEquals(start.code, 0, start.stdout);
  assertEquals(start.json.data.requests.map((r: { rid: string }) => r.rid), ["003-ok"]);
  assert(start.json.warnings.length >= 1, JSON.stringify(start.json.warnings));
});

Deno.test("session start refuses a bad --skill with a usage error", async () => {
  await using dir = await tempDir();
  const result = await peaks(dir.path, "session", "start", "--skill", "Bad Skill");
  assertEquals(result.code, 2);
  assertEquals(result.json.code, "INVALID_FLAG_VALUE");
});

Deno.test("concurrent session starts agree on one session and one presence", async () => {
  await using dir = await tempDir();
  const results = await pool(16, 16, () => peaks(dir.path, "session", "start"));
  assertEquals(results.map((r) => r.code), Array(16).fill(0));
  assertEquals(new Set(results.map((r) => r.json.data.sessionId)).size, 1);
  const presence = await peaks(dir.path, "skill", "presence");
  assertEquals(presence.json.data.gate, "startup");
});

Deno.test("session start honours PEAKS_SESSION_ID as every later command does, and refuses one that does not exist", async () => {
  await using dir = await tempDir();
  const first = await peaks(dir.path, "session", "start");
  const bound = first.json.data.sessionId;
  const other = await runPeaks(
    ["workspace", "init", "--session-id", "2026-01-02-session-abcdef", "--json"],
    { cwd: dir.path },
  );
  assertEquals(other.code, 0, other.stdout);
  // Back to the first binding; the variable names the other session.
  await runPeaks(["workspace", "init", "--session-id", bound, "--json"], { cwd: dir.path });
  const env = { PEAKS_SESSION_ID: "2026-01-02-session-abcdef" };
  const start = await runPeaks(["session", "start", "--json"], { cwd: dir.path, env });
  assertEquals(start.code, 0, start.stdout);
  assertEquals([start.json.data.sessionId, start.json.data.session], [
    "2026-01-02-session-abcdef",
    "env",
  ]);
  const info = await runPeaks(["session", "info", "--json"], { cwd: dir.path, env });
  assertEquals(info.json.data.sessionId, start.json.data.sessionId);
  // The binding is left alone.
  assertEquals((await peaks(dir.path, "session", "info", "--active")).json.data.sessionId, bound);
  const missing = await runPeaks(["session", "start", "--json"], {
    cwd: dir.path,
    env: { PEAKS_SESSION_ID: "2026-01-03-session-000000" },
  });
  assertEquals(missing.code, 1, missing.stdout);
  assertEquals(missing.json.code, "SESSION_NOT_FOUND");
});
