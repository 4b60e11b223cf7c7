/**
 * Resume: an orchestrator that lost its context finds, from peaks alone in at most three calls,
 * the open request, its step, its sub-agents (live, stale, finished) and the next action, and
 * cannot dispatch a second copy of a live sub-agent.
 */
import { assertEquals, assertMatch } from "@std/assert";
import { tempDir } from "../support/temp.ts";
import { readyRequest, transition, workspace } from "../support/request_fixture.ts";

Deno.test("resume in three calls: open request, its step, its live sub-agent; no second copy", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "rd", "r1", "bugfix");
  await ws.write(
    "rd/bug-analysis-r1.md",
    "## Root cause\n\nOff by one.\n\n## Fix approach\n\nClamp.\n",
  );
  assertEquals((await transition(ws, "rd", "r1", "spec-locked")).code, 0);
  const first = await ws.peaks(
    "sub-agent",
    "dispatch",
    "rd",
    "--request-id",
    "r1",
    "--prompt",
    "fix it",
  );
  assertEquals(first.code, 0, first.stdout);
  const record = first.json.data.record as string;

  // The context is gone. Call 1: the open requests.
  const list = await ws.peaks("request", "list");
  assertEquals(list.code, 0, list.stdout);
  const open = list.json.data.requests[0];
  assertEquals(open.rid, "r1");
  // Call 2: the request's step, sub-agents and next action.
  const show = await ws.peaks("request", "show", "r1", "--role", open.role);
  assertEquals(show.code, 0, show.stdout);
  const data = show.json.data;
  assertEquals(data.step.gate, "rd-implementation");
  assertMatch(data.step.waitingFor, /RD sub-agent/);
  assertEquals(show.json.nextActions, []);
  assertEquals(data.subAgents.length, 1);
  assertEquals(data.subAgents[0].role, "rd");
  assertEquals(data.subAgents[0].state, "live");
  assertMatch(record, new RegExp(data.subAgents[0].record));

  // A second copy of the live RD sub-agent is refused, naming the live record.
  const again = await ws.peaks(
    "sub-agent",
    "dispatch",
    "rd",
    "--request-id",
    "r1",
    "--prompt",
    "fix it",
  );
  assertEquals(again.code, 3, again.stdout);
  assertEquals(again.json.code, "SUB_AGENT_LIVE");
  assertEquals(again.json.data.record, data.subAgents[0].record);

  // Once it is finalized it shows as finished and the chain goes on.
  const done = await ws.peaks(
    "sub-agent",
    "finalize",
    "--record",
    data.subAgents[0].record,
    "--outcome",
    "failed",
    "--error",
    "session ended",
  );
  assertEquals(done.code, 0, done.stdout);
  const after = await ws.peaks("request", "show", "r1", "--role", "rd");
  assertEquals(after.json.data.subAgents[0].state, "finished");
});
