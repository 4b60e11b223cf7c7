/**
 * Detached runs end to end with fake vendor CLIs: every way a run can end
 * leaves exit.json, no pid or owner-session file, and a terminal record.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import {
  detachedEnv,
  dispatchDetached,
  fakeFiles,
  fakeVendors,
  readJsonFile,
  supervisorPid,
  waitFor,
  waitForExit,
} from "../support/detached.ts";
import { runNextAction } from "../support/next_actions.ts";
import { initWorkspace } from "../support/subagent.ts";
import { exists, tempDir } from "../support/temp.ts";
import { join } from "../../lib/infra/std.ts";

async function assertClosed(runDir: string): Promise<void> {
  assert(!(await exists(join(runDir, "pid"))), "pid file left behind");
  assert(!(await exists(join(runDir, "owner-session"))), "owner-session left behind");
  assert(await exists(join(runDir, "log.txt")), "log.txt missing");
  const status = await readJsonFile(join(runDir, "status.json"));
  assertEquals(status.state, "exited");
}

Deno.test("a successful run ends done with its log, artefact, heartbeats and return JSON", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { claude: "ok" });
  const env = detachedEnv(bin);
  const run = await dispatchDetached(dir.path, env, "rd", [
    "--vendor",
    "claude",
    "--request-id",
    "001-login",
    "--prompt",
    "Implement the login form",
  ]);
  const data = run.result.json.data;
  assertEquals([data.mode, data.vendor, data.toolCall], ["detached", "claude", null]);
  assertEquals(
    data.orchestratorVisibleHint,
    "⏳ Spawning detached sub-agent via claude: rid=001-login (ETA ~60s)",
  );
  assertEquals(data.expectedCompletionSeconds, 60);
  assertMatch(data.detached.runDir, new RegExp(`^\\.peaks/_runtime/${sid}/detached/001-login/rd-`));
  assertEquals(data.detached.input, "stdin");

  // Both nextActions run as written: watch follows the batch to its end, status reports it.
  const [watch, status] = run.result.json.nextActions;
  const watched = await runNextAction(watch, { cwd: dir.path, env });
  assertEquals(watched.code, 0, watched.stdout);
  assertEquals(watched.json.data.counts.done, 1);
  assertEquals((await runNextAction(status, { cwd: dir.path, env })).code, 0);

  const exit = await waitForExit(run.runDir);
  assertEquals([exit.exitCode, exit.signal, exit.outcome, exit.reason], [0, null, "done", "exit"]);
  await assertClosed(run.runDir);
  const log = await Deno.readTextFile(join(run.runDir, "log.txt"));
  assertStringIncludes(log, "working on it");
  assertStringIncludes(log, "almost there");

  const record = await readJsonFile(run.recordPath);
  assertEquals([record.status, record.outcome, record.mode, record.vendor], [
    "done",
    "done",
    "detached",
    "claude",
  ]);
  assertEquals(record.heartbeats.at(-1).progress, 100);
  assert(record.heartbeats.some((b: { status: string }) => b.status === "running"));
  assertEquals(record.result.status, "ok");
  assertEquals(record.result.rid, "001-login");

  // The vendor got the record's prompt on stdin, and the argument vector of claude's stdin form
  // with the default posture (edits in the project, peaks itself).
  const [prompt] = await fakeFiles(dir.path, sid, "prompt-");
  assertEquals(await Deno.readTextFile(prompt), record.prompt);
  assertStringIncludes(record.prompt, "Implement the login form");
  const [args] = await fakeFiles(dir.path, sid, "args-");
  assertEquals((await Deno.readTextFile(args)).trim().split("\n"), [
    "-p",
    "--output-format",
    "json",
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    "Bash(peaks:*)",
  ]);
  assertEquals((await fakeFiles(dir.path, sid, "artefact-")).length, 1);
});

Deno.test("a failing vendor ends failed with its exit code; one killed by the OS, with its signal", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { codex: "fail", gemini: "crash" });
  const env = detachedEnv(bin);
  const failing = await dispatchDetached(dir.path, env, "qa", [
    "--vendor",
    "codex",
    "--prompt",
    "x",
  ]);
  const crashing = await dispatchDetached(dir.path, env, "ui", [
    "--vendor",
    "gemini",
    "--prompt",
    "x",
  ]);

  const failed = await waitForExit(failing.runDir);
  assertEquals([failed.exitCode, failed.outcome, failed.reason], [7, "failed", "exit"]);
  await assertClosed(failing.runDir);
  assertStringIncludes(await Deno.readTextFile(join(failing.runDir, "log.txt")), "boom");
  const failedRecord = await readJsonFile(failing.recordPath);
  // The end of its stderr says why.
  assertEquals([failedRecord.status, failedRecord.error], [
    "failed",
    "codex exited with code 7: boom: the vendor failed",
  ]);

  const crashed = await waitForExit(crashing.runDir);
  assertEquals([crashed.exitCode, crashed.signal, crashed.outcome], [null, "SIGKILL", "failed"]);
  await assertClosed(crashing.runDir);
  const crashedRecord = await readJsonFile(crashing.recordPath);
  assertEquals([crashedRecord.status, crashedRecord.error], [
    "failed",
    "gemini was killed by SIGKILL",
  ]);
});

Deno.test("a hung vendor that ignores SIGTERM ends timeout after --timeout; its partial artefact stays", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { copilot: "stubborn" });
  const run = await dispatchDetached(dir.path, detachedEnv(bin), "rd", [
    "--vendor",
    "copilot",
    "--timeout",
    "1s",
    "--prompt",
    "x",
  ]);
  assertEquals(run.result.json.data.detached.timeoutMs, 1000);
  const exit = await waitForExit(run.runDir);
  assertEquals([exit.outcome, exit.reason, exit.signal], ["timeout", "timeout", "SIGKILL"]);
  await assertClosed(run.runDir);
  const record = await readJsonFile(run.recordPath);
  assertEquals([record.status, record.outcome], ["timeout", "timeout"]);
  assertStringIncludes(record.error, "1s timeout");
  const [partial] = await fakeFiles(dir.path, sid, "partial-");
  assertEquals(await Deno.readTextFile(partial), "partial\n");
});

Deno.test("SIGTERM to the supervisor stops the vendor and still closes every file", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { claude: "stubborn" });
  const run = await dispatchDetached(dir.path, detachedEnv(bin), "rd", [
    "--vendor",
    "claude",
    "--prompt",
    "x",
  ]);
  const pid = await supervisorPid(run.runDir);
  assertEquals(pid, run.result.json.data.detached.supervisorPid);
  await waitFor("owner-session", () => exists(join(run.runDir, "owner-session")));
  const owner = await readJsonFile(join(run.runDir, "owner-session"));
  assertEquals(owner.supervisorPid, pid);
  Deno.kill(pid, "SIGTERM");
  const exit = await waitForExit(run.runDir);
  assertEquals([exit.outcome, exit.reason], ["cancelled", "signal"]);
  await assertClosed(run.runDir);
  const record = await readJsonFile(run.recordPath);
  assertEquals(record.status, "cancelled");
  assertStringIncludes(record.error, "SIGTERM");
});

Deno.test("finalize --outcome cancelled on a live detached record stops its vendor", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { codex: "hang" });
  const env = detachedEnv(bin);
  const run = await dispatchDetached(dir.path, env, "qa", ["--vendor", "codex", "--prompt", "x"]);
  await supervisorPid(run.runDir);
  const result = await runPeaks([
    "sub-agent",
    "finalize",
    "--record",
    run.result.json.data.dispatchRecordPath,
    "--outcome",
    "cancelled",
    "--json",
  ], { cwd: dir.path, env });
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.finalized[0].detached.state, "stopped");
  const exit = await waitForExit(run.runDir);
  assertEquals([exit.outcome, exit.reason], ["cancelled", "cancelled"]);
  await assertClosed(run.runDir);
  assert(!(await exists(join(run.runDir, "stop"))));
  const record = await readJsonFile(run.recordPath);
  assertEquals([record.status, record.disposed], ["cancelled", true]);
});

Deno.test("the vendor's own output decides too: refused tools, an API error, a blocked result and a missing login never end done", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, {
    claude: "refused",
    codex: "turn-failed",
    gemini: "blocked",
    copilot: "no-auth",
  });
  const env = detachedEnv(bin);
  const runs = [];
  for (const vendor of ["claude", "codex", "gemini", "copilot"]) {
    runs.push(await dispatchDetached(dir.path, env, "rd", ["--vendor", vendor, "--prompt", "x"]));
  }
  const ends = [];
  for (const run of runs) {
    const exit = await waitForExit(run.runDir);
    const record = await readJsonFile(run.recordPath);
    ends.push([record.status, exit.reason, record.error]);
  }
  assertEquals(ends, [
    ["failed", "refused", "claude refused 1 tool call: Bash: touch hello.txt"],
    [
      "failed",
      "api-error",
      "codex reported an error (HTTP 503): unexpected status 503 Service Unavailable: overloaded (exit code 1)",
    ],
    ["failed", "blocked", "gemini returned blocked: needs a database"],
    [
      "failed",
      "auth",
      "copilot could not authenticate: Error: not logged in. Run the login command or set an API key. (exit code 1)",
    ],
  ]);
  // The blocked result was still parsed from gemini's streamed message and stored.
  const blocked = await readJsonFile(runs[2].recordPath);
  assertEquals([blocked.result?.status, blocked.result?.blockedReason], [
    "blocked",
    "needs a database",
  ]);
});
