import { assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { projectLayout } from "../../lib/workspace/paths.ts";
import { peekOpenBatch, peekPresence } from "../../lib/statusline/peek.ts";
import { batchHeader } from "../../lib/batch/status_line.ts";
import { ago, makeRecord, writeBatchOnDisk } from "../support/subagent.ts";
import { tempDir } from "../support/temp.ts";

const SID = "2026-01-01-session-abcdef";

Deno.test("the status line's reader: members, a broken record, a pending number that never got a record", async () => {
  await using dir = await tempDir();
  const project = { root: dir.path, layout: projectLayout(dir.path), source: "cwd" as const };
  const records = [
    makeRecord({ sessionId: SID, batchId: "b1", role: "ui", n: 1, beats: [[ago(2_000), 40]] }),
    makeRecord({
      sessionId: SID,
      batchId: "b1",
      role: "rd-planning",
      n: 2,
      beats: [[ago(1_000), 70]],
    }),
    makeRecord({
      sessionId: SID,
      batchId: "b1",
      role: "qa-test-cases",
      n: 3,
      beats: [[ago(1_000), 100]],
      status: "done",
    }),
  ];
  const paths = await writeBatchOnDisk(dir.path, SID, "b1", records);
  const batchPath = join(dir.path, ".peaks", "_sub_agents", SID, "batch-b1.json");
  const batch = JSON.parse(await Deno.readTextFile(batchPath));
  const ghost = { n: 4, role: "ghost", requestId: "r1", record: "dispatch-r1-ghost-x.json" };
  batch.pending = [{ ...ghost, addedAt: new Date().toISOString() }];
  await Deno.writeTextFile(batchPath, JSON.stringify(batch));

  let views = (await peekOpenBatch(project, SID, new Date()))!;
  assertEquals(views.map((v) => v.role), ["ui", "rd-planning", "qa-test-cases"]);
  // A batch file its shape doubts (a member naming a path, not a record file) is not shown.
  await Deno.writeTextFile(
    batchPath,
    JSON.stringify({ ...batch, pending: [{ ...ghost, addedAt: "x", record: "../../etc/passwd" }] }),
  );
  assertEquals(await peekOpenBatch(project, SID, new Date()), undefined);
  await Deno.writeTextFile(batchPath, JSON.stringify(batch));
  views = (await peekOpenBatch(project, SID, new Date()))!;
  assertEquals(batchHeader(views), "swarm 2/3 running");

  await Deno.writeTextFile(paths[1], '{"status": "runn');
  views = (await peekOpenBatch(project, SID, new Date()))!;
  assertEquals(views.map((v) => v.status), ["running", "unreadable", "done"]);
});

Deno.test("the status line's presence: the caller's own file, else the session's; what its shape doubts is skipped", async () => {
  await using dir = await tempDir();
  const project = { root: dir.path, layout: projectLayout(dir.path), source: "cwd" as const };
  const write = async (path: string, value: unknown) => {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, JSON.stringify(value));
  };
  const presence = (skill: string, callerId: string | null) => ({
    version: 1,
    sessionId: SID,
    callerId,
    skill,
    mode: null,
    gate: "prd",
    role: null,
    setAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
  });
  await write(project.layout.presence(SID), presence("peaks-code", null));
  assertEquals((await peekPresence(project, SID, "w1"))?.skill, "peaks-code");
  await write(project.layout.presence(SID, "w1"), presence("peaks-rd", "w1"));
  assertEquals((await peekPresence(project, SID, "w1"))?.skill, "peaks-rd");
  await write(project.layout.presence(SID, "w1"), { ...presence("peaks-rd", "w1"), role: 7 });
  assertEquals((await peekPresence(project, SID, "w1"))?.skill, "peaks-code", "junk is skipped");
  await Deno.writeTextFile(project.layout.presence(SID, "w1"), "[]");
  assertEquals((await peekPresence(project, SID, "w1"))?.skill, "peaks-code");
});

Deno.test("a member that beat and went stale is stalled, not 'not started'", () => {
  const member = (status: string, beatAgeSec: number | null) =>
    ({
      n: 1,
      role: "rd",
      recordPath: "r.json",
      status,
      liveness: "stale",
      progress: 10,
      beatAgeSec,
      sinceDispatchSec: 600,
      record: null,
    }) as unknown as Parameters<typeof batchHeader>[0][number];
  assertEquals(batchHeader([member("stale", 420)]), "sub-agent stalled");
  assertEquals(batchHeader([member("never-started", null)]), "sub-agent not started");
  assertEquals(
    batchHeader([member("stale", 420), member("queued", null)]),
    "swarm 2/2 stalled",
  );
});
