import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import {
  ago,
  heartbeatArgs,
  initWorkspace,
  makeRecord,
  readJson,
  writeBatchOnDisk,
} from "../../support/subagent.ts";
import { runNextAction } from "../../support/next_actions.ts";
import { displayPath } from "../../../lib/workspace/paths.ts";

function beat(cwd: string, record: string, ...extra: string[]) {
  return runPeaks(
    [
      ...heartbeatArgs(record, "40"),
      ...extra,
      "--json",
    ],
    { cwd },
  );
}

Deno.test("a heartbeat appends the beat, sets lastBeatAt, stage and running", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const [path] = await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({ sessionId: sid, role: "rd", batchId: "b1", n: 1 }),
  ]);
  const rel = displayPath(dir.path, path);
  const result = await beat(dir.path, rel, "--stage", "analyzing", "--note", "reading the API");
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.beats, 1);
  assertEquals(result.json.data.revived, false);
  const record = await readJson(path);
  assertEquals(record.status, "running");
  assertEquals(record.stage, "analyzing");
  assertEquals(record.heartbeats[0].note, "reading the API");
  assertEquals(record.lastBeatAt, record.heartbeats[0].at);
});

Deno.test("done ends the record; a later beat is RECORD_TERMINAL and changes nothing", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const [path] = await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({ sessionId: sid, role: "rd", batchId: "b1", n: 1 }),
  ]);
  const rel = displayPath(dir.path, path);
  const done = await runPeaks(
    ["sub-agent", "heartbeat", "--record", rel, "--status", "done", "--progress", "100", "--json"],
    { cwd: dir.path },
  );
  assertEquals(done.code, 0, done.stderr);
  const record = await readJson(path);
  assertEquals([record.status, record.outcome], ["done", "done"]);
  assert(record.completedAt);
  const bytes = await Deno.readTextFile(path);
  const late = await beat(dir.path, rel);
  assertEquals([late.code, late.json.code], [1, "RECORD_TERMINAL"]);
  assertEquals(await Deno.readTextFile(path), bytes);
  for (const action of late.json.nextActions) {
    assertEquals((await runNextAction(action, { cwd: dir.path })).code, 0, action);
  }
});

Deno.test("a beat revives stale and never-started records and says so", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const [stale, silent] = await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({
      sessionId: sid,
      role: "rd",
      batchId: "b1",
      n: 1,
      createdAt: ago(900_000),
      beats: [[ago(600_000), 30]],
    }),
    makeRecord({ sessionId: sid, role: "qa", batchId: "b1", n: 2, createdAt: ago(120_000) }),
  ]);
  for (const [path, from] of [[stale, "stale"], [silent, "never-started"]]) {
    const result = await beat(dir.path, displayPath(dir.path, path));
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.json.data.revived, true);
    assertEquals(result.json.warnings[0].code, "RECORD_REVIVED");
    assertMatch(result.json.warnings[0].message, new RegExp(`was ${from}`));
    const record = await readJson(path);
    assertEquals(record.revivedAt, record.lastBeatAt);
    assertEquals(record.status, "running");
  }
});

Deno.test("--record must name a dispatch record inside the project", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(`${dir.path}/notes.json`, "{}");
  const cases: Array<[string, number, string]> = [
    ["notes.json", 2, "NOT_A_DISPATCH_RECORD"],
    ["../elsewhere/dispatch-x.json", 2, "PATH_OUTSIDE_PROJECT"],
    [
      `.peaks/_sub_agents/${sid}/dispatch-none-rd-mil3k2xa-aaaa.json`,
      1,
      "RECORD_NOT_FOUND",
    ],
    ["dispatch-none-rd-mil3k2xa-aaaa.json", 1, "RECORD_NOT_FOUND"],
  ];
  for (const [record, code, name] of cases) {
    const result = await beat(dir.path, record);
    assertEquals([result.code, result.json.code], [code, name], record);
    for (const action of result.json.nextActions) {
      assertEquals((await runNextAction(action, { cwd: dir.path })).code, 0, action);
    }
  }
});

Deno.test("bad heartbeat values are usage errors naming the flag", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const result = await runPeaks(
    [
      "sub-agent",
      "heartbeat",
      "--record",
      "x.json",
      "--status",
      "sleeping",
      "--progress",
      "10",
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals([result.code, result.json.data.flag], [2, "status"]);
  assertEquals(result.json.data.allowed, ["running", "finalizing", "done", "failed"]);
  const progress = await runPeaks(
    [
      ...heartbeatArgs("x.json", "101"),
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals([progress.code, progress.json.data.flag], [2, "progress"]);
});
