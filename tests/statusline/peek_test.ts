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
  batch.pending = [{ n: 4, role: "ghost", requestId: "r1", record: "dispatch-r1-ghost-x.json" }];
  await Deno.writeTextFile(batchPath, JSON.stringify(batch));

  let views = (await peekOpenBatch(project, SID, new Date()))!;
  assertEquals(views.map((v) => v.role), ["ui", "rd-planning", "qa-test-cases"]);
  assertEquals(batchHeader(views), "swarm 2/3 running");

  await Deno.writeTextFile(paths[1], '{"status": "runn');
  views = (await peekOpenBatch(project, SID, new Date()))!;
  assertEquals(views.map((v) => v.status), ["running", "unreadable", "done"]);
});

Deno.test("the status line's presence: the caller's own file, else the session's; junk is skipped", async () => {
  await using dir = await tempDir();
  const project = { root: dir.path, layout: projectLayout(dir.path), source: "cwd" as const };
  const write = async (path: string, value: unknown) => {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, JSON.stringify(value));
  };
  await write(project.layout.presence(SID), { skill: "peaks-code", gate: "prd", role: 7 });
  assertEquals((await peekPresence(project, SID, "w1"))?.skill, "peaks-code");
  assertEquals(
    (await peekPresence(project, SID, "w1"))?.role,
    null,
    "a non-string field is dropped",
  );
  await write(project.layout.presence(SID, "w1"), { skill: "peaks-rd" });
  assertEquals((await peekPresence(project, SID, "w1"))?.skill, "peaks-rd");
  await Deno.writeTextFile(project.layout.presence(SID, "w1"), "[]");
  assertEquals((await peekPresence(project, SID, "w1"))?.skill, "peaks-code");
});
