/**
 * SIGKILL fault injection against real peaks writers. The normal test run does
 * a short seeded run; `deno task test:faults` runs the long one
 * (PEAKS_FAULTS_INJECTIONS, default 1000). PEAKS_FAULTS_SEED replays a run.
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { cacheDir, REPO, runPeaks, scriptArgs } from "../support/cli.ts";
import { countFromEnv, rng, seedFromEnv } from "../support/prng.ts";
import { tempDir } from "../support/temp.ts";
import { heartbeatArgs, initWorkspace, recordPathOf } from "../support/subagent.ts";
import { checkOutcomes, type FaultSummary, FaultWorld } from "./harness.ts";

const LONG = Deno.env.get("PEAKS_FAULTS") === "long";
const TARGET = countFromEnv("PEAKS_FAULTS_INJECTIONS", LONG ? 1000 : 40);
const SEED = seedFromEnv("PEAKS_FAULTS_SEED", LONG ? undefined : 20261129);
const ROUNDS_PER_SESSION = 8;

Deno.test(`SIGKILL injection: ${TARGET} kills leave only complete operations (seed ${SEED})`, async () => {
  await using dir = await tempDir("peaks-faults-");
  const world = new FaultWorld(dir.path, rng(SEED));
  await world.start();
  await world.newEpoch();
  const summary: FaultSummary = {
    seed: SEED,
    rounds: 0,
    writers: 0,
    injections: 0,
    injectionsByKind: {},
    filesChecked: 0,
    tempLeftovers: 0,
    violations: [],
  };
  let state = await world.check();
  world.calibrate(await world.round(world.plan(state), 0));
  // A run whose kills keep missing their writers is a broken harness, not a pass.
  const maxRounds = TARGET * 2;
  while (summary.injections < TARGET && summary.violations.length === 0) {
    assert(
      summary.rounds < maxRounds,
      `only ${summary.injections} kills in ${summary.rounds} rounds`,
    );
    if (summary.rounds > 0 && summary.rounds % ROUNDS_PER_SESSION === 0) await world.newEpoch();
    state = await world.check();
    world.adopt(state);
    const results = await world.round(world.plan(state), 0.75);
    world.calibrate(results);
    summary.rounds++;
    summary.writers += results.length;
    for (const r of results.filter((r) => r.killed)) {
      summary.injections++;
      summary.injectionsByKind[r.op.kind] = (summary.injectionsByKind[r.op.kind] ?? 0) + 1;
    }
    state = await world.check();
    summary.filesChecked += state.checked;
    summary.tempLeftovers = state.tempFiles.length;
    summary.violations.push(...state.violations, ...checkOutcomes(results, state));
  }
  // After the last kill, an unkilled round must go through: no lock is left behind.
  const last = await world.round(world.plan(await world.check()), 0);
  summary.violations.push(...checkOutcomes(last, await world.check()));
  for (const r of last) assert(!r.killed && r.json !== undefined, r.stderr);

  console.log(`faults: ${JSON.stringify(summary)}`);
  const out = Deno.env.get("PEAKS_FAULTS_REPORT");
  if (out) await Deno.writeTextFile(out, JSON.stringify(summary, null, 2) + "\n");
  assertEquals(summary.violations, [], `seed ${SEED}: replay with PEAKS_FAULTS_SEED=${SEED}`);
  assert(summary.injections >= TARGET);
});

Deno.test("a lock held by a killed process never blocks the next writer", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const env = { CLAUDECODE: "1" };
  const dispatched = await runPeaks(["sub-agent", "dispatch", "rd", "--prompt", "x", "--json"], {
    cwd: dir.path,
    env,
  });
  assertEquals(dispatched.code, 0, dispatched.stderr);
  const record: string = recordPathOf(dir.path, dispatched.json.data.record);
  const holder = new Deno.Command(Deno.execPath(), {
    args: scriptArgs(join(REPO, "tests", "faults", "lock_holder.ts"), [join(dir.path, record)]),
    env: { PATH: Deno.env.get("PATH") ?? "", DENO_DIR: await cacheDir(), HOME: dir.path },
    clearEnv: true,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = holder.stdout.getReader();
  const { value } = await reader.read();
  assertEquals(new TextDecoder().decode(value).trim(), "locked");
  const beat = [
    ...heartbeatArgs(record, "5"),
    "--json",
  ];

  // While the holder lives, a writer with a short bound gives up with LOCK_TIMEOUT.
  const blocked = await runPeaks(beat, {
    cwd: dir.path,
    env: { ...env, PEAKS_LOCK_TIMEOUT_MS: "300" },
  });
  assertEquals([blocked.code, blocked.json?.code], [1, "LOCK_TIMEOUT"], blocked.stdout);

  holder.kill("SIGKILL");
  assertEquals((await holder.status).signal, "SIGKILL");
  reader.releaseLock();
  await holder.stdout.cancel();
  // The OS released the lock with its holder: the same bound is now plenty.
  const after = await runPeaks(beat, {
    cwd: dir.path,
    env: { ...env, PEAKS_LOCK_TIMEOUT_MS: "2000" },
  });
  assertEquals(after.code, 0, after.stdout);
  assertEquals(after.json.data.beats, 1);
  assert(sid);
});
