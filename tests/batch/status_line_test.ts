import { assert, assertEquals, assertMatch } from "@std/assert";
import { batchStatusLine, memberView } from "../../lib/batch/status_line.ts";
import type { RecordStatus } from "../../lib/state/record.ts";
import { makeRecord } from "../support/subagent.ts";

const now = new Date("2026-11-29T12:00:00.000Z");
const before = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

function member(
  role: string,
  n: number,
  progress: number,
  beatAgo: number | null,
  status?: RecordStatus,
  createdAgo = 600,
) {
  const record = makeRecord({
    sessionId: "s",
    role,
    batchId: "b",
    n,
    status,
    createdAt: before(createdAgo),
    beats: beatAgo === null ? [] : [[before(beatAgo), progress]],
  });
  return memberView(`/p/${role}.json`, record, now);
}

const length = (text: string) => [...text].length;

Deno.test("running batch: the documented shape, 80-120 characters", () => {
  const line = batchStatusLine("peaks-code", [
    member("rd-planning", 1, 45, 12),
    member("qa-test-cases", 2, 30, 5),
    member("ui", 3, 100, 20, "done"),
  ], 120);
  assertEquals(
    line,
    "[peaks-code] swarm 2/3 running | rd-planning 45% (12s ago) | qa-test-cases 30% (5s ago) | ui 100% done",
  );
  assert(length(line) >= 80 && length(line) <= 120);
});

Deno.test("a member dispatched but not yet beating is queued, not counted as running", () => {
  const line = batchStatusLine("peaks-code", [
    member("rd-planning", 1, 45, 12),
    member("ui", 2, 0, null, undefined, 10),
  ]);
  assertEquals(
    line,
    "[peaks-code] swarm 1/2 running, 1 queued | rd-planning 45% (12s ago) | ui queued (10s)",
  );
});

Deno.test("a silent member is marked stale with its age; nothing else changes", () => {
  const line = batchStatusLine("peaks-code", [
    member("rd-planning", 1, 45, 12),
    member("ui", 2, 20, 6 * 60),
  ]);
  assertEquals(
    line,
    "[peaks-code] swarm 2/2 running | rd-planning 45% (12s ago) | ui 20% (6m ago) ⚠ stale",
  );
});

Deno.test("a member without a beat after 60 s is never-started", () => {
  const line = batchStatusLine("peaks-code", [member("qa-test-cases", 1, 0, null, undefined, 75)]);
  assertEquals(
    line,
    "[peaks-code] sub-agent not started | qa-test-cases 0% (no beat, 1m) ⚠ never-started",
  );
});

Deno.test("all done collapses to N/N done; failures stay visible", () => {
  const done = [member("a", 1, 100, 3, "done"), member("b", 2, 100, 3, "done")];
  assertEquals(batchStatusLine("peaks-code", done), "[peaks-code] swarm 2/2 done");
  const mixed = [...done, member("c", 3, 40, 3, "failed")];
  assertEquals(
    batchStatusLine("peaks-code", mixed),
    "[peaks-code] swarm 2/3 done, 1 failed | c 40% failed",
  );
});

Deno.test("a wide batch shortens before passing 120 characters and keeps problems", () => {
  const members = Array.from(
    { length: 9 },
    (_, i) => member(`qa-business-regression-${i}`, i + 1, 10 * i, 3),
  );
  members.push(member("ui-visual-component-review", 10, 20, 400));
  const line = batchStatusLine("peaks-code", members);
  assert(length(line) <= 120, line);
  assertMatch(line, /^\[peaks-code\] swarm 10\/10 running \| /);
  assertMatch(line, /⚠ stale/);
  assertMatch(line, /\+\d+ more$/);
});
