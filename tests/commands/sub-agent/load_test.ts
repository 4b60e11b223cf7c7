/**
 * A short load run (bench/load.ts runs the long one): 8 sub-agents
 * heartbeating every 100 ms for 4 s beside watch, list, status and share.
 * Checks correctness only, never timing: no lost update, no LOCK_TIMEOUT,
 * every call succeeds, every state file valid.
 */
import { assert, assertEquals } from "@std/assert";
import { tempDir } from "../../support/temp.ts";
import { runLoad } from "../../support/load.ts";

Deno.test("8 sub-agents heartbeating beside watch, list, status and share lose nothing", async () => {
  await using dir = await tempDir("peaks-load-");
  const result = await runLoad({
    root: dir.path,
    agents: 8,
    intervalMs: 100,
    durationMs: 4000,
    sharers: 1,
    pollGapMs: 200,
  });
  assertEquals(result.lostUpdates, []);
  assertEquals(result.lockTimeouts, 0);
  assertEquals(result.failures, []);
  assertEquals(result.stateViolations, []);
  assert(result.commands.heartbeat.count >= 8 && result.commands.share.count > 0);
  assert(result.watchLines >= 1);
});
