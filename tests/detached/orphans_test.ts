/**
 * `cleanup --orphans`: detached runs whose supervisor is gone or whose
 * session no longer exists are listed and left alone; only --orphans --kill
 * stops or reconciles them.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import {
  detachedEnv,
  dispatchDetached,
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

function orphans(cwd: string, env: Record<string, string>) {
  return runPeaks(["sub-agent", "cleanup", "--orphans", "--json"], { cwd, env });
}

Deno.test("a supervisor killed with SIGKILL leaves an orphan that only --orphans --kill reconciles", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { claude: "hang" });
  const env = detachedEnv(bin);
  const run = await dispatchDetached(dir.path, env, "rd", ["--vendor", "claude", "--prompt", "x"]);
  const pid = await supervisorPid(run.runDir);
  try {
    Deno.kill(pid, "SIGKILL");
    const listed = await waitFor("the orphan listing", async () => {
      const result = await orphans(dir.path, env);
      return result.json.data.orphans.length ? result : undefined;
    });
    assertEquals(listed.code, 0);
    const [row] = listed.json.data.orphans;
    assertEquals([row.reason, row.action, row.supervisorPid], ["supervisor-gone", "listed", pid]);
    assertStringIncludes(listed.json.data.instructions.join(" "), `kill -TERM -- -${pid}`);
    // Listing changed nothing.
    assert(await exists(join(run.runDir, "pid")));
    assert(["queued", "running"].includes((await readJsonFile(run.recordPath)).status));

    const killed = await runNextAction(listed.json.nextActions[0], { cwd: dir.path, env });
    assertEquals(killed.code, 0, killed.stdout);
    assertEquals(killed.json.data.orphans[0].action, "reconciled");
    assert(!(await exists(join(run.runDir, "pid"))));
    assert(!(await exists(join(run.runDir, "owner-session"))));
    const exit = await readJsonFile(join(run.runDir, "exit.json"));
    assertEquals([exit.outcome, exit.reason], ["failed", "supervisor-lost"]);
    assertEquals((await readJsonFile(run.recordPath)).status, "failed");
    assertEquals((await orphans(dir.path, env)).json.data.orphans, []);
  } finally {
    // The vendor lives on in the dead supervisor's process group, as the instructions say.
    try {
      Deno.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

Deno.test("a live run whose session is gone is an orphan; --kill stops it through its supervisor", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { codex: "hang" });
  const env = detachedEnv(bin);
  const run = await dispatchDetached(dir.path, env, "qa", ["--vendor", "codex", "--prompt", "x"]);
  await supervisorPid(run.runDir);
  const healthy = await orphans(dir.path, env);
  assertEquals([healthy.json.data.orphans, healthy.json.nextActions], [[], []]);

  await Deno.remove(join(dir.path, ".peaks", "_runtime", sid, "session.json"));
  const listed = await orphans(dir.path, env);
  const [row] = listed.json.data.orphans;
  assertEquals([row.reason, row.action, row.sessionId], ["session-gone", "listed", sid]);
  assert(await exists(join(run.runDir, "pid")));

  const killed = await runNextAction(listed.json.nextActions[0], { cwd: dir.path, env });
  assertEquals(killed.code, 0, killed.stdout);
  assertEquals(killed.json.data.orphans[0].action, "stopped");
  const exit = await waitForExit(run.runDir);
  assertEquals([exit.outcome, exit.reason], ["cancelled", "cancelled"]);
  assertEquals((await readJsonFile(run.recordPath)).status, "cancelled");
});

Deno.test("--kill without --orphans is a usage error", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const result = await runPeaks(["sub-agent", "cleanup", "--kill", "--json"], { cwd: dir.path });
  assertEquals([result.code, result.json.code], [2, "CONFLICTING_FLAGS"]);
});
