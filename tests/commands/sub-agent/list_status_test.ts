import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir } from "../../support/temp.ts";
import {
  ago,
  initWorkspace,
  makeRecord,
  readJson,
  writeBatchOnDisk,
} from "../../support/subagent.ts";
import { runNextAction } from "../../support/next_actions.ts";
import { displayPath } from "../../../lib/workspace/paths.ts";

const status = (cwd: string, ...extra: string[]) =>
  runPeaks(["sub-agent", "status", "--label", "peaks-code", ...extra, "--json"], { cwd });

function shape(line: string) {
  assert([...line].length <= 120, line);
}

Deno.test("status: all running, in the documented shape", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeBatchOnDisk(dir.path, sid, "swarm-1", [
    makeRecord({
      sessionId: sid,
      role: "rd-planning",
      batchId: "swarm-1",
      n: 1,
      beats: [[ago(12_000), 45]],
    }),
    makeRecord({
      sessionId: sid,
      role: "qa-test-cases",
      batchId: "swarm-1",
      n: 2,
      beats: [[ago(5_000), 30]],
    }),
    makeRecord({ sessionId: sid, role: "ui", batchId: "swarm-1", n: 3, beats: [[ago(2_000), 20]] }),
  ]);
  const result = await status(dir.path);
  assertEquals(result.code, 0, result.stderr);
  const line: string = result.json.data.line;
  assertMatch(
    line,
    /^\[peaks-code\] swarm 3\/3 running \| rd-planning 45% \(\d+s ago\) \| qa-test-cases 30% \(\d+s ago\) \| ui 20% \(\d+s ago\)$/,
  );
  assert([...line].length >= 80, line);
  shape(line);
  const human = await runPeaks(["sub-agent", "status", "--label", "peaks-code"], { cwd: dir.path });
  assertMatch(human.stdout, /^\[peaks-code\] swarm 3\/3 running \| [^\n]+\n$/);
});

Deno.test("status: one stale member is marked, the rest unchanged", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeBatchOnDisk(dir.path, sid, "swarm-1", [
    makeRecord({
      sessionId: sid,
      role: "rd-planning",
      batchId: "swarm-1",
      n: 1,
      createdAt: ago(900_000),
      beats: [[ago(10_000), 45]],
    }),
    makeRecord({
      sessionId: sid,
      role: "ui",
      batchId: "swarm-1",
      n: 2,
      createdAt: ago(900_000),
      beats: [[ago(6 * 60_000 + 5_000), 20]],
    }),
  ]);
  const line: string = (await status(dir.path)).json.data.line;
  assertMatch(
    line,
    /^\[peaks-code\] swarm 2\/2 running \| rd-planning 45% \(\d+s ago\) \| ui 20% \(6m ago\) ⚠ stale$/,
  );
  shape(line);
});

Deno.test("status: a member silent since dispatch is never-started", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeBatchOnDisk(dir.path, sid, "swarm-1", [
    makeRecord({
      sessionId: sid,
      role: "rd-planning",
      batchId: "swarm-1",
      n: 1,
      beats: [[ago(3_000), 10]],
    }),
    makeRecord({
      sessionId: sid,
      role: "qa-test-cases",
      batchId: "swarm-1",
      n: 2,
      createdAt: ago(90_000),
    }),
  ]);
  const result = await status(dir.path);
  assertMatch(
    result.json.data.line,
    /^\[peaks-code\] swarm 2\/2 running \| rd-planning 10% \(\d+s ago\) \| qa-test-cases 0% \(no beat, 1m\) ⚠ never-started$/,
  );
  assertEquals(result.json.data.counts.stale, 1);
});

Deno.test("status: all done reads N/N done; the newest batch is the default", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeBatchOnDisk(dir.path, sid, "old", [
    makeRecord({ sessionId: sid, role: "rd", batchId: "old", n: 1, beats: [[ago(1_000), 5]] }),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await writeBatchOnDisk(dir.path, sid, "new", [
    makeRecord({
      sessionId: sid,
      role: "rd",
      batchId: "new",
      n: 1,
      status: "done",
      beats: [[ago(1_000), 100]],
    }),
    makeRecord({
      sessionId: sid,
      role: "qa",
      batchId: "new",
      n: 2,
      status: "done",
      beats: [[ago(1_000), 100]],
    }),
    makeRecord({
      sessionId: sid,
      role: "ui",
      batchId: "new",
      n: 3,
      status: "done",
      beats: [[ago(1_000), 100]],
    }),
  ]);
  const result = await status(dir.path);
  assertEquals(result.json.data.batchId, "new");
  assertEquals(result.json.data.line, "[peaks-code] swarm 3/3 done");
  const old = await status(dir.path, "--batch", "old");
  assertMatch(old.json.data.line, /^\[peaks-code\] sub-agent running \| rd 5%/);
  const missing = await status(dir.path, "--batch", "nope");
  assertEquals([missing.code, missing.json.code], [1, "BATCH_NOT_FOUND"]);
});

Deno.test("a truncated record: list reports it with a repair command and lists the others", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const paths = await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({ sessionId: sid, role: "rd", batchId: "b1", n: 1, beats: [[ago(1_000), 50]] }),
    makeRecord({ sessionId: sid, role: "qa", batchId: "b1", n: 2, beats: [[ago(1_000), 60]] }),
    makeRecord({ sessionId: sid, role: "ui", batchId: "b1", n: 3, beats: [[ago(1_000), 70]] }),
  ]);
  const text = await Deno.readTextFile(paths[1]);
  await Deno.writeTextFile(paths[1], text.slice(0, text.length / 2));

  const list = await runPeaks(["sub-agent", "list", "--json"], { cwd: dir.path });
  assertEquals(list.code, 0, list.stderr);
  assertEquals(list.json.data.records.map((r: { role: string }) => r.role).sort(), ["rd", "ui"]);
  assertEquals(list.json.data.unreadable.length, 1);
  assertEquals(list.json.data.unreadable[0].recordPath, displayPath(dir.path, paths[1]));
  assertEquals(list.json.warnings[0].code, "RECORD_UNREADABLE");
  const status = await runPeaks(["sub-agent", "status", "--batch", "b1", "--json"], {
    cwd: dir.path,
  });
  assertMatch(status.json.data.line, /qa ⚠ unreadable/);

  const finalize = await runPeaks(
    ["sub-agent", "finalize", "--batch", "b1", "--outcome", "done", "--json"],
    { cwd: dir.path },
  );
  assertEquals(finalize.code, 0, finalize.stderr);
  assertEquals(finalize.json.data.finalized.length, 2);
  assertEquals(finalize.json.data.skipped.length, 1);
  assertEquals((await readJson(paths[0])).status, "done");
  assertEquals((await readJson(paths[2])).status, "done");

  // The repair command moves the broken record aside; listing is clean afterwards.
  for (const action of list.json.nextActions) {
    const moved = await new Deno.Command("sh", { args: ["-c", action], cwd: dir.path }).output();
    assertEquals(moved.code, 0, action);
  }
  const after = await runPeaks(["sub-agent", "list", "--json"], { cwd: dir.path });
  assertEquals(after.json.data.unreadable, []);
  assertEquals(after.json.data.records.length, 2);
});

Deno.test("list filters by batch and live status and reports liveness", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({
      sessionId: sid,
      role: "rd",
      batchId: "b1",
      n: 1,
      createdAt: ago(900_000),
      beats: [[ago(400_000), 10]],
    }),
    makeRecord({ sessionId: sid, role: "qa", batchId: "b1", n: 2, beats: [[ago(1_000), 10]] }),
  ]);
  await writeBatchOnDisk(dir.path, sid, "b2", [
    makeRecord({ sessionId: sid, role: "ui", batchId: "b2", n: 1, beats: [[ago(1_000), 10]] }),
  ]);
  const stale = await runPeaks(["sub-agent", "list", "--status", "stale", "--json"], {
    cwd: dir.path,
  });
  assertEquals(stale.json.data.records.map((r: { role: string }) => r.role), ["rd"]);
  assertEquals(stale.json.data.records[0].liveness, "stale");
  assert(stale.json.data.records[0].lastBeatAgeSec >= 400);
  const b2 = await runPeaks(["sub-agent", "list", "--batch", "b2", "--json"], { cwd: dir.path });
  assertEquals(b2.json.data.records.map((r: { role: string }) => r.role), ["ui"]);
  for (const action of b2.json.nextActions) {
    assertEquals((await runNextAction(action, { cwd: dir.path })).code, 0);
  }
});
