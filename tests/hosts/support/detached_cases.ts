/**
 * The detached scenarios every vendor goes through, against the real CLI and
 * a scripted stand-in: it edits a project file and heartbeats through its
 * own tool calls (record `done`, result parsed from its own output); the
 * same with edits refused; an HTTP 500, a malformed stream, a hung stream
 * and missing credentials (never `done`, never a hang: the outcome and its
 * reason name what happened).
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { join } from "../../../lib/infra/std.ts";
import type { HostAdapter } from "./hosts.ts";
import { detachedBrief, HOST_TIMEOUT_MS, returnJson, runDetached, world } from "./scenario.ts";
import {
  hang,
  http,
  malformed,
  type Script,
  sideAnswer,
  text,
  tools,
  type Turn,
  type View,
} from "./standin.ts";

export interface VendorExpectations {
  vendor: "claude" | "codex" | "gemini" | "opencode" | "copilot";
  /** The host's variables with the credentials taken away. */
  withoutCredentials(env: Record<string, string>): Record<string, string>;
  /** Test knobs that keep the vendor's own retries short (the outcome is the same, sooner). */
  fewRetries?: Record<string, string>;
  /** What the vendor's message for an HTTP 500 says (not every vendor names the status). */
  http500: RegExp;
  /** Whether peaks itself can write under the read-only posture (codex's sandbox is read-only for all). */
  peaksWritesWhenReadOnly?: boolean;
  /** Which cases this vendor runs (all by default). */
  skip?: Array<"refused" | "http500" | "malformed" | "hang" | "auth">;
}

const TASK = "Create hello.txt in the project root with the text hello, then report.";

/** The agent part of a script: side calls (titles, routing) get a side answer. */
function agent(turns: (view: View) => Turn): Script {
  return (view) => view.tools.length === 0 ? sideAnswer(view) : turns(view);
}

/** Turn 0: heartbeat through the shell and write the file; turn 1: the return JSON. */
function workingScript(host: HostAdapter, project: string): Script {
  return agent((view) => {
    const brief = detachedBrief(view);
    if (!brief) return text("I got no peaks brief.");
    if (view.turn === 0) {
      return tools(
        host.shell(
          `peaks sub-agent heartbeat --record ${brief.record} --status running --progress 40 --note host-beat --json`,
        ),
        host.write(join(project, "hello.txt"), "hello\n"),
      );
    }
    return text(`Wrote hello.txt.\n${returnJson(brief)}`);
  });
}

export function detachedCases(host: HostAdapter, expect: VendorExpectations): void {
  const name = expect.vendor;
  const skip = new Set(expect.skip ?? []);
  const opts = { sanitizeOps: false, sanitizeResources: false };

  Deno.test(
    `${name} detached: edits a project file and heartbeats through its own tools; done with its result`,
    opts,
    async () => {
      let project = "";
      await using w = await world(host, (view, ex) => workingScript(host, project)(view, ex));
      project = w.sandbox.project;
      const end = await runDetached(w, [
        "rd",
        "--vendor",
        name,
        "--prompt",
        TASK,
        "--timeout",
        "3m",
      ]);
      const calls = w.standIn.calls().filter((c) => c.view!.tools.length > 0);
      assert(calls.length >= 2, `the host made ${calls.length} model calls`);
      // The first agent request carries peaks' detached prompt.
      const brief = detachedBrief(calls[0].view!);
      assert(brief, "the host's first request has no peaks brief");
      assertEquals(brief?.rid, end.record.requestId);
      assertStringIncludes(calls[0].view!.userText + calls[0].view!.system, TASK);
      // What the host's own tool calls did.
      assertEquals(await Deno.readTextFile(join(w.sandbox.project, "hello.txt")), "hello\n");
      const beat = end.record.heartbeats.find((b: { note: string }) => b.note === "host-beat");
      assert(
        beat,
        `no heartbeat from the host's tool call: ${JSON.stringify(end.record.heartbeats)}`,
      );
      assertEquals(beat.progress, 40);
      // The heartbeat's envelope came back to the model (some hosts send tool output JSON-escaped).
      assertMatch(calls.at(-1)!.view!.toolResults.join("\n"), /\\?"ok\\?":true/);
      // The record's outcome and the result, parsed from the vendor's own output.
      assertEquals(
        [end.record.status, end.exit.outcome, end.exit.reason],
        ["done", "done", "exit"],
        end.record.error ?? end.log.slice(-2000),
      );
      assertEquals(end.record.result?.rid, end.record.requestId);
      assertEquals(end.record.result?.diffSummary, "added hello.txt");
      assertEquals(end.exit.exitCode, 0);
    },
  );

  if (!skip.has("refused")) {
    Deno.test(
      `${name} detached, read-only posture: the edit is refused, the record is not done and names the refusal`,
      opts,
      async () => {
        let project = "";
        await using w = await world(host, (view, ex) => workingScript(host, project)(view, ex));
        project = w.sandbox.project;
        const end = await runDetached(w, [
          "rd",
          "--vendor",
          name,
          "--prompt",
          TASK,
          "--timeout",
          "3m",
          "--vendor-permissions",
          "read-only",
        ]);
        assert(
          !(await Deno.lstat(join(project, "hello.txt")).then(() => true, () => false)),
          "the file was written",
        );
        const beat = end.record.heartbeats.some((b: { note: string }) => b.note === "host-beat");
        // peaks itself still runs (the heartbeat went through), except inside codex's read-only sandbox.
        assertEquals(beat, expect.peaksWritesWhenReadOnly ?? true);
        assertEquals(
          [end.record.status, end.exit.reason],
          ["failed", "refused"],
          end.record.error ?? "",
        );
        // The refused call is named by what it tried, or by its tool where the host withholds it.
        assertMatch(
          end.record.error,
          new RegExp(`^${name} refused \\d+ tool calls?: .*(hello\\.txt|write)`),
          // What the host printed, to tell a refusal peaks missed from one the host never made.
          end.log.slice(-6000),
        );
      },
    );
  }

  const failing = (turn: Turn): Script => agent(() => turn);
  const errorCase = (
    label: string,
    key: "http500" | "malformed" | "hang" | "auth",
    script: Script,
    args: string[],
    check: (end: Awaited<ReturnType<typeof runDetached>>) => void,
    env: (hostEnv: Record<string, string>) => Record<string, string> = (hostEnv) => hostEnv,
  ) => {
    if (skip.has(key)) return;
    Deno.test(`${name} detached: ${label}`, opts, async () => {
      await using w = await world(host, script);
      const end = await runDetached(
        w,
        ["rd", "--vendor", name, "--prompt", TASK, ...args],
        { ...(expect.fewRetries ?? {}) },
        env(w.hostEnv),
      );
      assert(end.record.status !== "done", "the record ended done");
      check(end);
    });
  };

  errorCase(
    "an HTTP 500 from the model API fails the run and says so",
    "http500",
    failing(http(500)),
    ["--timeout", "3m"],
    (end) => {
      assertEquals([end.record.status, end.exit.reason], ["failed", "api-error"], end.record.error);
      assertMatch(end.record.error, expect.http500);
    },
  );

  errorCase("a malformed event stream fails the run", "malformed", failing(malformed()), [
    "--timeout",
    "3m",
  ], (end) => {
    assertEquals(end.record.status, "failed", end.record.error);
    assert(["api-error", "exit"].includes(end.exit.reason), end.exit.reason);
    assertMatch(end.record.error, new RegExp(`^${name} `));
  });

  errorCase("a hung stream ends at the supervisor's timeout", "hang", failing(hang()), [
    "--timeout",
    "12s",
  ], (end) => {
    assertEquals([end.record.status, end.exit.outcome, end.exit.reason], [
      "timeout",
      "timeout",
      "timeout",
    ]);
    assertStringIncludes(end.record.error, "12s timeout");
  });

  errorCase(
    "without credentials the run fails as a login problem",
    "auth",
    failing(text("unused")),
    ["--timeout", "3m"],
    (end) => {
      assertEquals([end.record.status, end.exit.reason], ["failed", "auth"], end.record.error);
    },
    (hostEnv) => expect.withoutCredentials(hostEnv),
  );
}

export { HOST_TIMEOUT_MS };
