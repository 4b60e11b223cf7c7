/**
 * Many real peaks processes writing the same record, channel or batch at
 * once: nothing may be lost and no reader may ever see a half-written file.
 */
import { assert, assertEquals } from "@std/assert";
import { pool, runPeaks } from "../../support/cli.ts";
import { tempDir } from "../../support/temp.ts";
import { heartbeatArgs, initWorkspace, readJson, recordPathOf } from "../../support/subagent.ts";
import { join } from "../../../lib/infra/std.ts";

const CLAUDE = { CLAUDECODE: "1" };

async function dispatchOne(cwd: string, batch?: string) {
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "rd",
      "--prompt",
      "work",
      ...(batch ? ["--batch-id", batch] : []),
      "--json",
    ],
    { cwd, env: CLAUDE },
  );
  assertEquals(result.code, 0, result.stderr);
  const dispatchRecordPath = recordPathOf(cwd, result.json.data.record);
  // A batch id peaks chose is in the record (the lean envelope names the record only).
  const { batchId } = JSON.parse(await Deno.readTextFile(join(cwd, dispatchRecordPath)));
  return { ...result.json.data, batchId, dispatchRecordPath };
}

/** Reads `path` in a loop until `stop` resolves; counts reads that were not valid JSON. */
function watchReads(
  path: string,
  stop: Promise<unknown>,
): Promise<{ reads: number; invalid: number }> {
  let done = false;
  stop.finally(() => (done = true));
  return (async () => {
    let reads = 0;
    let invalid = 0;
    while (!done) {
      try {
        JSON.parse(await Deno.readTextFile(path));
      } catch {
        invalid++;
      }
      reads++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return { reads, invalid };
  })();
}

async function beats(cwd: string, record: string, count: number) {
  const storm = pool(count, 64, (i) =>
    runPeaks(
      [
        ...heartbeatArgs(record, String(i % 101)),
        "--note",
        `beat ${i}`,
        "--json",
      ],
      { cwd },
    ));
  const reads = watchReads(join(cwd, record), storm);
  const results = await storm;
  return { results, reads: await reads };
}

Deno.test("64 concurrent heartbeats on one record: 64 entries, valid JSON throughout", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatchOne(dir.path);
  const { results, reads } = await beats(dir.path, dispatchRecordPath, 64);
  for (const result of results) assertEquals(result.code, 0, result.stderr);
  assertEquals(reads.invalid, 0);
  assert(reads.reads > 0);
  const record = await readJson(join(dir.path, dispatchRecordPath));
  assertEquals(record.heartbeats.length, 64);
  assertEquals(new Set(record.heartbeats.map((b) => b.note)).size, 64);
  assertEquals(record.truncated, false);
});

Deno.test("128 concurrent heartbeats: the newest 100 are kept and truncated is set", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatchOne(dir.path);
  const { results, reads } = await beats(dir.path, dispatchRecordPath, 128);
  for (const result of results) assertEquals(result.code, 0, result.stderr);
  assertEquals(reads.invalid, 0);
  const record = await readJson(join(dir.path, dispatchRecordPath));
  assertEquals(record.heartbeats.length, 100);
  assertEquals(record.truncated, true);
  assertEquals(new Set(record.heartbeats.map((b) => b.note)).size, 100);
  const times = record.heartbeats.map((b) => b.at);
  assertEquals(times, [...times].sort(), "kept in arrival order");
});

Deno.test("64 concurrent shares with distinct keys on one batch: 64 entries", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const { batchId } = await dispatchOne(dir.path);
  const results = await pool(64, 64, (i) =>
    runPeaks(
      [
        "sub-agent",
        "share",
        "--batch",
        batchId,
        "--key",
        `agent-${i}.completed`,
        "--value",
        JSON.stringify({ i }),
        "--from",
        `agent-${i}`,
        "--json",
      ],
      { cwd: dir.path },
    ));
  for (const result of results) assertEquals(result.code, 0, result.stderr);
  const channel = JSON.parse(
    await Deno.readTextFile(
      join(dir.path, ".peaks", "_sub_agents", sid, "shared", `${batchId}.json`),
    ),
  );
  assertEquals(channel.entries.length, 64);
  assertEquals(
    new Set(channel.entries.map((e: { value: { i: number } }) => e.value.i)).size,
    64,
  );
});

Deno.test("32 concurrent dispatches into one batch are numbered exactly 1..32", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const results = await pool(32, 32, () =>
    runPeaks(
      [
        "sub-agent",
        "dispatch",
        "qa",
        "--batch-id",
        "fan",
        "--request-id",
        "001-login",
        "--prompt",
        "x",
        "--json",
      ],
      { cwd: dir.path, env: CLAUDE },
    ));
  for (const result of results) assertEquals(result.code, 0, result.stderr);
  const paths = new Set(results.map((r) => recordPathOf(dir.path, r.json.data.record)));
  const numbers = await Promise.all(
    [...paths].map(async (p) => (await readJson(join(dir.path, p))).dispatchedInBatch),
  );
  numbers.sort((a, b) => a - b);
  assertEquals(numbers, Array.from({ length: 32 }, (_, i) => i + 1));
  assertEquals(paths.size, 32);
  const batch = JSON.parse(
    await Deno.readTextFile(join(dir.path, ".peaks", "_sub_agents", sid, "batch-fan.json")),
  );
  assertEquals(batch.count, 32);
  assertEquals(batch.members.length, 32);
  for (const member of batch.members) {
    const record = await readJson(join(dir.path, ".peaks", "_sub_agents", sid, member.record));
    assertEquals(record.dispatchedInBatch, member.n);
  }
});
