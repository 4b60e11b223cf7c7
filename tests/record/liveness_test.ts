import { assertEquals } from "@std/assert";
import {
  effectiveStatus,
  lastBeatAgeSec,
  liveness,
  staleAfterMs,
} from "../../lib/record/liveness.ts";
import { makeRecord } from "../support/subagent.ts";

const now = new Date("2026-11-29T12:00:00.000Z");
const before = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
const base = { sessionId: "s", role: "rd", batchId: "b", n: 1 };

Deno.test("no beat: pending for 60 s after dispatch, never-started from then on", () => {
  assertEquals(liveness(makeRecord({ ...base, createdAt: before(59) }), now), "pending");
  const silent = makeRecord({ ...base, createdAt: before(60) });
  assertEquals(liveness(silent, now), "never-started");
  assertEquals(effectiveStatus(silent, now), "never-started");
});

Deno.test("a beat older than 5 minutes is stale; younger is alive", () => {
  const alive = makeRecord({ ...base, createdAt: before(900), beats: [[before(299), 40]] });
  assertEquals(liveness(alive, now), "alive");
  assertEquals(effectiveStatus(alive, now), "running");
  const stale = makeRecord({ ...base, createdAt: before(900), beats: [[before(300), 40]] });
  assertEquals(liveness(stale, now), "stale");
  assertEquals(effectiveStatus(stale, now), "stale");
  assertEquals(lastBeatAgeSec(stale, now), 300);
});

Deno.test("terminal records keep their status whatever their age", () => {
  const done = makeRecord({
    ...base,
    status: "done",
    createdAt: before(9999),
    beats: [[before(9000), 100]],
  });
  assertEquals(liveness(done, now), "terminal");
  assertEquals(effectiveStatus(done, now), "done");
});

Deno.test("a slow heartbeat cadence widens the stale window to two intervals", () => {
  assertEquals(staleAfterMs({ heartbeatIntervalSec: 30 }), 300_000);
  assertEquals(staleAfterMs({ heartbeatIntervalSec: 600 }), 1_200_000);
  const slow = makeRecord({
    ...base,
    createdAt: before(2000),
    beats: [[before(900), 10]],
    overrides: { heartbeatIntervalSec: 600 },
  });
  assertEquals(liveness(slow, now), "alive");
});

Deno.test("a persisted stale mark reads as running once a fresh beat arrived", () => {
  const revived = makeRecord({
    ...base,
    createdAt: before(900),
    beats: [[before(5), 50]],
    overrides: { status: "stale" },
  });
  assertEquals(effectiveStatus(revived, now), "running");
});

Deno.test("a beat from the future (a clock stepped back) is not alive forever: it ages as it is far ahead", () => {
  const skew = makeRecord({ ...base, createdAt: before(900), beats: [[before(-30), 40]] });
  assertEquals(liveness(skew, now), "alive");
  const ahead = makeRecord({ ...base, createdAt: before(900), beats: [[before(-3 * 3600), 40]] });
  assertEquals(liveness(ahead, now), "stale");
  assertEquals(lastBeatAgeSec(ahead, now), 3 * 3600);
  const unborn = makeRecord({ ...base, createdAt: before(-3600) });
  assertEquals(liveness(unborn, now), "never-started");
});
