import { assert, assertEquals, assertMatch } from "@std/assert";
import { baseEnv, peaksArgs, runPeaks } from "../../support/cli.ts";
import { exists, tempDir } from "../../support/temp.ts";
import {
  agentsDir,
  ago,
  initWorkspace,
  makeRecord,
  readJson,
  writeBatchOnDisk,
} from "../../support/subagent.ts";
import { runNextAction } from "../../support/next_actions.ts";
import { displayPath } from "../../../lib/workspace/paths.ts";
import { join } from "../../../lib/infra/std.ts";

const DAY = 86_400_000;

Deno.test("watch ends at once with exit 0 when every member is done", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({
      sessionId: sid,
      role: "rd",
      batchId: "b1",
      n: 1,
      status: "done",
      beats: [[ago(1_000), 100]],
    }),
    makeRecord({
      sessionId: sid,
      role: "qa",
      batchId: "b1",
      n: 2,
      status: "done",
      beats: [[ago(1_000), 100]],
    }),
  ]);
  const result = await runPeaks(["sub-agent", "watch", "--label", "peaks-code"], { cwd: dir.path });
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.stdout, "[peaks-code] swarm 2/2 done\n");
});

Deno.test("watch exits 1 when a member failed", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({
      sessionId: sid,
      role: "rd",
      batchId: "b1",
      n: 1,
      status: "done",
      beats: [[ago(1_000), 100]],
    }),
    makeRecord({
      sessionId: sid,
      role: "qa",
      batchId: "b1",
      n: 2,
      status: "failed",
      beats: [[ago(1_000), 40]],
    }),
  ]);
  const result = await runPeaks(["sub-agent", "watch", "--json"], { cwd: dir.path });
  assertEquals(result.code, 1);
  assertEquals(result.json.ok, true);
  assertEquals(result.json.data.counts.failed, 1);
});

Deno.test("watch times out with exit 3, persists the stale mark and touches nothing else", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const [stale, alive] = await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({
      sessionId: sid,
      role: "rd",
      batchId: "b1",
      n: 1,
      createdAt: ago(900_000),
      beats: [[ago(400_000), 30]],
    }),
    makeRecord({ sessionId: sid, role: "qa", batchId: "b1", n: 2, beats: [[ago(1_000), 30]] }),
  ]);
  const aliveBefore = await Deno.readTextFile(alive);
  const result = await runPeaks(
    ["sub-agent", "watch", "--interval", "100ms", "--timeout", "300ms", "--json"],
    { cwd: dir.path },
  );
  assertEquals([result.code, result.json.code], [3, "WATCH_TIMEOUT"]);
  assertMatch(result.json.data.line, /rd 30% \(6m ago\) ⚠ stale/);
  const record = await readJson(stale);
  assertEquals(record.status, "stale");
  assertEquals(record.outcome, null);
  assertEquals(await Deno.readTextFile(alive), aliveBefore);
  for (const action of result.json.nextActions) {
    assertEquals((await runNextAction(action, { cwd: dir.path })).code, 0, action);
  }
});

Deno.test("watch prints a line per change and ends when the last member finishes", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const [path] = await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({ sessionId: sid, role: "rd", batchId: "b1", n: 1, beats: [[ago(1_000), 30]] }),
  ]);
  const child = new Deno.Command(Deno.execPath(), {
    args: peaksArgs([
      "sub-agent",
      "watch",
      "--interval",
      "100ms",
      "--timeout",
      "60s",
      "--label",
      "w",
    ]),
    cwd: dir.path,
    env: await baseEnv({ cwd: dir.path }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("\n")) seen += (await reader.read()).value ?? "";
  assertMatch(seen, /^\[w\] sub-agent running \| rd 30%/);
  const done = await runPeaks(
    [
      "sub-agent",
      "heartbeat",
      "--record",
      displayPath(dir.path, path),
      "--status",
      "done",
      "--progress",
      "100",
    ],
    { cwd: dir.path },
  );
  assertEquals(done.code, 0, done.stderr);
  while (true) {
    const chunk = await reader.read();
    if (chunk.done) break;
    seen += chunk.value;
  }
  const status = await child.status;
  await child.stderr.cancel();
  assertEquals(status.code, 0);
  const lines = seen.trimEnd().split("\n");
  assertEquals(lines.at(-1), "[w] sub-agent done");
  assertEquals(new Set(lines).size, lines.length, "a line is printed only when it changes");
});

Deno.test("cleanup archives a finished batch whole (records, batch file, channel); never a batch with an open member", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const old = ago(40 * DAY);
  const [finished] = await writeBatchOnDisk(dir.path, sid, "old", [
    makeRecord({
      sessionId: sid,
      role: "rd",
      batchId: "old",
      n: 1,
      status: "done",
      createdAt: old,
      beats: [[old, 100]],
    }),
  ]);
  await Deno.mkdir(join(agentsDir(dir.path, sid), "shared"), { recursive: true });
  await Deno.writeTextFile(join(agentsDir(dir.path, sid), "shared", "old.json"), "{}");
  const [openOld, recent] = await writeBatchOnDisk(dir.path, sid, "mixed", [
    makeRecord({
      sessionId: sid,
      role: "qa",
      batchId: "mixed",
      n: 1,
      createdAt: old,
      beats: [[old, 10]],
    }),
    makeRecord({
      sessionId: sid,
      role: "ui",
      batchId: "mixed",
      n: 2,
      status: "failed",
      createdAt: ago(DAY),
      beats: [[ago(DAY), 10]],
    }),
  ]);

  const dry = await runPeaks(["sub-agent", "cleanup", "--dry-run", "--json"], { cwd: dir.path });
  assertEquals(dry.code, 0, dry.stderr);
  assertEquals(dry.json.data.archived.length, 1);
  assert(await exists(finished), "dry run moves nothing");

  const result = await runPeaks(["sub-agent", "cleanup", "--json"], { cwd: dir.path });
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.archived.map((a: { recordPath: string }) => a.recordPath), [
    displayPath(dir.path, finished),
  ]);
  assertEquals(result.json.data.batches.map((b: { batchId: string }) => b.batchId), ["old"]);
  const archive = join(dir.path, ".peaks", "_sub_agents", "_archive", sid);
  assert(!(await exists(finished)));
  assert(await exists(join(archive, finished.split("/").at(-1)!)));
  assert(await exists(join(archive, "batch-old.json")));
  assert(await exists(join(archive, "shared", "old.json")));
  assert(await exists(openOld), "an open record is never touched, however old");
  assert(await exists(recent), "a recent finished record stays");

  const tight = await runPeaks(["sub-agent", "cleanup", "--older-than", "1h", "--json"], {
    cwd: dir.path,
  });
  assertEquals(tight.json.data.archived, [], "a batch with an open member stays whole");
  assertEquals(tight.json.data.batches, []);
  assert(await exists(openOld));
  assert(await exists(recent), "a finished member of a live batch is never archived alone");

  const list = await runPeaks(["sub-agent", "list", "--json"], { cwd: dir.path });
  assertEquals(list.json.data.records.map((r: { role: string }) => r.role).sort(), ["qa", "ui"]);
});

Deno.test("statusline render shows the progress of the open batch", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await runPeaks(["skill", "presence:set", "peaks-code", "--gate", "swarm-fan-out"], {
    cwd: dir.path,
  });
  await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({
      sessionId: sid,
      role: "rd",
      batchId: "b1",
      n: 1,
      status: "done",
      beats: [[ago(1_000), 100]],
    }),
    makeRecord({ sessionId: sid, role: "qa", batchId: "b1", n: 2, beats: [[ago(1_000), 50]] }),
    makeRecord({
      sessionId: sid,
      role: "ui",
      batchId: "b1",
      n: 3,
      createdAt: ago(900_000),
      beats: [[ago(600_000), 50]],
    }),
  ]);
  const result = await runPeaks(["statusline", "render"], {
    cwd: dir.path,
    stdin: JSON.stringify({ context_window: { used_percentage: 41 } }),
  });
  assertEquals(result.code, 0);
  assertEquals(
    result.stdout,
    "⛰ peaks-code · gate swarm-fan-out · swarm 2/3 running ⚠ 1 stale · ctx 41%\n",
  );

  const broken = join(agentsDir(dir.path, sid), "batch-b1.json");
  await Deno.writeTextFile(broken, "{");
  const still = await runPeaks(["statusline", "render"], { cwd: dir.path, stdin: "{}" });
  assertEquals(still.code, 0);
  assertMatch(still.stdout, /^⛰ peaks-code · gate swarm-fan-out/);
});
