/**
 * The resource budget: live detached sub-agents per project are counted from
 * pid files whose supervisor holds its lease; the next one past
 * --max-concurrent is refused until one finishes; dead pid files are
 * reconciled, never counted. Also: dispatch answers while the sub-agent
 * keeps running, and watch follows it live.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { pool, runPeaks } from "../support/cli.ts";
import {
  detachedEnv,
  type DetachedRun,
  dispatchDetached,
  fakeVendors,
  readJsonFile,
  waitFor,
  waitForExit,
} from "../support/detached.ts";
import { runNextAction } from "../support/next_actions.ts";
import { agentsDir, initWorkspace, makeRecord, writeBatchOnDisk } from "../support/subagent.ts";
import { exists, tempDir, writeText } from "../support/temp.ts";
import { join } from "../../lib/infra/std.ts";

async function release(root: string, role: string): Promise<void> {
  await writeText(join(root, "release", role), "go\n");
}

async function recordCount(root: string, sid: string): Promise<number> {
  let n = 0;
  for await (const entry of Deno.readDir(agentsDir(root, sid))) {
    if (entry.name.startsWith("dispatch-") && entry.name.endsWith(".json")) n++;
  }
  return n;
}

Deno.test("dispatch answers while the sub-agent runs on, and watch shows it live", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { claude: "gated" });
  const env = detachedEnv(bin);
  const run = await dispatchDetached(dir.path, env, "live", [
    "--vendor",
    "claude",
    "--prompt",
    "x",
  ]);
  // The vendor waits for release/live, so everything below happens while it runs.
  assert(await exists(join(run.runDir, "pid")));
  assert(!["done", "failed"].includes((await readJsonFile(run.recordPath)).status));
  const batch = run.result.json.data.batchId;
  const watching = runPeaks(
    ["sub-agent", "watch", "--batch", batch, "--interval", "200ms", "--timeout", "60s"],
    { cwd: dir.path, env },
  );
  await waitFor("a beat from the output", async () => {
    const record = await readJsonFile(run.recordPath);
    return record.heartbeats.some((b: { note: string }) => b.note?.includes("output"));
  });
  await release(dir.path, "live");
  const watched = await watching;
  assertEquals(watched.code, 0, watched.stderr);
  const lines = watched.stdout.trim().split("\n");
  assert(lines.length >= 2, watched.stdout);
  assertMatch(lines[0], /sub-agent running \| live /);
  assert(lines.some((line) => /\| live \d+% \(/.test(line)), watched.stdout);
  assertStringIncludes(lines.at(-1)!, "sub-agent done");
  assertEquals((await waitForExit(run.runDir)).outcome, "done");
});

Deno.test("the 9th detached dispatch is refused with exit 3; after one finishes a new one is accepted", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { claude: "gated" });
  const env = detachedEnv(bin);
  const runs: DetachedRun[] = [];
  try {
    for (let i = 1; i <= 8; i++) {
      runs.push(
        await dispatchDetached(dir.path, env, `w${i}`, ["--vendor", "claude", "--prompt", "x"]),
      );
    }
    assertEquals(runs.at(-1)!.result.json.data.detached.live, 8);
    const refused = await runPeaks([
      "sub-agent",
      "dispatch",
      "w9",
      "--mode",
      "detached",
      "--vendor",
      "claude",
      "--prompt",
      "x",
      "--json",
    ], { cwd: dir.path, env });
    assertEquals([refused.code, refused.json.code], [3, "RESOURCE_BUDGET_EXCEEDED"]);
    assertEquals([refused.json.data.live, refused.json.data.maxConcurrent], [8, 8]);
    assertEquals(await recordCount(dir.path, sid), 8);
    const [noThrottle, watch] = refused.json.nextActions;
    assertMatch(noThrottle, /^peaks sub-agent dispatch w9 --prompt-file \S+ .*--no-throttle/);
    assertMatch(watch, /^peaks sub-agent watch --batch /);

    await release(dir.path, "w1");
    assertEquals((await waitForExit(runs[0].runDir)).outcome, "done");
    runs.push(
      await dispatchDetached(dir.path, env, "w10", ["--vendor", "claude", "--prompt", "x"]),
    );
    assertEquals(runs.at(-1)!.result.json.data.detached.live, 8);

    // Both nextActions run as written: --no-throttle starts a 9th live one with a warning...
    const forced = await runNextAction(noThrottle, { cwd: dir.path, env });
    assertEquals(forced.code, 0, forced.stdout);
    assertEquals(forced.json.data.detached.live, 9);
    assert(forced.json.warnings.some((w: { code: string }) => w.code === "THROTTLE_DISABLED"));
    runs.push({
      result: forced,
      recordPath: join(dir.path, forced.json.data.dispatchRecordPath),
      runDir: join(dir.path, forced.json.data.detached.runDir),
    });
    // ...and watch follows a running batch to its end.
    const watchedRole = runs.find((r) => watch.includes(r.result.json.data.batchId))!;
    await release(dir.path, watchedRole.result.json.data.role);
    assertEquals((await runNextAction(watch, { cwd: dir.path, env })).code, 0);
  } finally {
    for (const run of runs) await release(dir.path, run.result.json.data.role);
    for (const run of runs) await waitForExit(run.runDir);
  }
});

Deno.test("12 dispatches at once: exactly 8 start, the others are refused with exit 3", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { claude: "gated" });
  const env = detachedEnv(bin);
  const results = await pool(12, 12, (i) =>
    runPeaks(
      [
        "sub-agent",
        "dispatch",
        `c${i}`,
        "--mode",
        "detached",
        "--vendor",
        "claude",
        "--prompt",
        "x",
        "--json",
      ],
      { cwd: dir.path, env },
    ));
  const started = results.filter((r) => r.code === 0);
  try {
    assertEquals(started.length, 8, results.map((r) => r.stdout).join("\n"));
    for (const refused of results.filter((r) => r.code !== 0)) {
      assertEquals([refused.code, refused.json.code], [3, "RESOURCE_BUDGET_EXCEEDED"]);
    }
  } finally {
    for (let i = 0; i < 12; i++) await release(dir.path, `c${i}`);
    for (const run of started) await waitForExit(join(dir.path, run.json.data.detached.runDir));
  }
});

Deno.test("a dead pid file is reconciled, not counted", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { codex: "ok" });
  const env = detachedEnv(bin);
  // A run whose supervisor was killed with SIGKILL: pid file left, nobody holds its lock.
  const [recordPath] = await writeBatchOnDisk(dir.path, sid, "b-lost", [
    makeRecord({ sessionId: sid, role: "lost", batchId: "b-lost", n: 1, requestId: "009" }),
  ]);
  const shown = recordPath.slice(dir.path.length + 1);
  const run = recordPath.split("/").pop()!.replace(/^dispatch-009-/, "").replace(/\.json$/, "");
  const runDir = join(dir.path, ".peaks", "_runtime", sid, "detached", "009", run);
  await writeText(join(runDir, "pid"), "999999\n");
  await writeText(
    join(runDir, "owner-session"),
    JSON.stringify({
      sessionId: sid,
      callerId: null,
      supervisorPid: 999999,
      recordPath: shown,
      startedAt: new Date().toISOString(),
    }),
  );
  const started = await dispatchDetached(dir.path, env, "rd", [
    "--vendor",
    "codex",
    "--max-concurrent",
    "1",
    "--prompt",
    "x",
  ]);
  const { warnings } = started.result.json;
  assert(warnings.some((w: { code: string }) => w.code === "DETACHED_RECONCILED"));
  assertEquals(started.result.json.data.detached.live, 1);
  assert(!(await exists(join(runDir, "pid"))));
  assert(!(await exists(join(runDir, "owner-session"))));
  assertEquals((await readJsonFile(join(runDir, "exit.json"))).reason, "supervisor-lost");
  const lost = await readJsonFile(recordPath);
  assertEquals(lost.status, "failed");
  assertEquals((await waitForExit(started.runDir)).outcome, "done");
});
