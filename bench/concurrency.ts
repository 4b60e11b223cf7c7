/**
 * Concurrency benchmark: N real peaks processes hitting one record, one shared
 * channel or one batch at the same time. Reports wall time, throughput, lost
 * updates and invalid reads (a reader polls the contended file during the
 * storm). `deno task bench` runs it per target; alone it prints JSON:
 *
 *     deno run -q --allow-all bench/concurrency.ts [--n 64] [--parallel 64]
 */
import { recordPathOf } from "../tests/support/subagent.ts";
import { join, parseArgs } from "../lib/infra/std.ts";
import { pool } from "../tests/support/cli.ts";
import {
  benchEnv,
  checkoutTarget,
  failureReason,
  makeProject,
  parseEnvelope,
  removeProject,
  runCommand,
  type Target,
} from "./target.ts";

export interface StormStats {
  wallMs: number;
  throughputPerSec: number;
  failures: number;
  reads: number;
  invalidReads: number;
  lostUpdates: number;
  /**
   * Medians over the calls of the time each held the contended lock and
   * waited for it (its PEAKS_PROFILE line); null for a CLI that does not say.
   */
  lockHoldMs: number | null;
  lockWaitMs: number | null;
}

export interface ConcurrencyReport {
  n: number;
  parallel: number;
  heartbeat: StormStats & { kept: number };
  share: StormStats & { entries: number };
  dispatch: StormStats & { duplicateNumbers: number; numberedOneToN: boolean };
}

/** Polls `path` until `stop` settles; counts reads that did not parse as JSON. */
async function pollReads(path: string, stop: Promise<unknown>) {
  let done = false;
  stop.finally(() => (done = true));
  let reads = 0;
  let invalidReads = 0;
  while (!done) {
    try {
      JSON.parse(await Deno.readTextFile(path));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) invalidReads++;
    }
    reads++;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return { reads, invalidReads };
}

// deno-lint-ignore no-explicit-any
type Call = { code: number; json: any; lock?: { holdMs: number; waitMs: number } };

/** The lock times of a call's `peaks-profile` line on stderr, when it has them. */
function lockTimes(stderr: string): Call["lock"] {
  const line = /peaks-profile (\{.*\})/.exec(stderr)?.[1];
  if (!line) return undefined;
  try {
    const profile = JSON.parse(line);
    if (typeof profile.lockHoldMs !== "number" || typeof profile.lockWaitMs !== "number") {
      return undefined;
    }
    return { holdMs: profile.lockHoldMs, waitMs: profile.lockWaitMs };
  } catch {
    return undefined;
  }
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return Math.round(value * 10) / 10;
}

export async function runConcurrency(
  target: Target,
  options: { n: number; parallel: number; env: Record<string, string> },
): Promise<ConcurrencyReport> {
  const { n } = options;
  const parallel = Math.min(options.parallel, n);
  const project = await makeProject();
  const run = (argv: string[], env = options.env) =>
    runCommand([...target.prefix, ...argv], { cwd: project, env });
  // Storm calls print their phases and lock times on stderr (PEAKS_PROFILE=1).
  const profiled = { ...options.env, PEAKS_PROFILE: "1" };
  const peaks = async (argv: string[]): Promise<Call> => {
    const out = await run(argv, profiled);
    return { code: out.code, json: parseEnvelope(out.stdout), lock: lockTimes(out.stderr) };
  };
  const must = async (argv: string[]): Promise<Call> => {
    const out = await run(argv);
    if (out.code !== 0) throw new Error(`${argv.slice(0, 2).join(" ")}: ${failureReason(out)}`);
    return { code: out.code, json: parseEnvelope(out.stdout) };
  };
  const readJson = async (path: string) => JSON.parse(await Deno.readTextFile(path));

  async function storm(path: string, run: (i: number) => Promise<Call>) {
    const started = performance.now();
    const all = pool(n, parallel, run);
    const reads = pollReads(path, all);
    const results = await all;
    const wallMs = performance.now() - started;
    const locks = results.flatMap((r) => r.lock ? [r.lock] : []);
    return {
      results,
      wallMs: Math.round(wallMs),
      throughputPerSec: Math.round((n / wallMs) * 1000 * 10) / 10,
      failures: results.filter((r) => r.code !== 0).length,
      lockHoldMs: median(locks.map((l) => l.holdMs)),
      lockWaitMs: median(locks.map((l) => l.waitMs)),
      ...(await reads),
    };
  }
  const strip = ({ results: _results, ...rest }: Awaited<ReturnType<typeof storm>>) => rest;

  try {
    const init = await must(["workspace", "init", "--json"]);
    const sid: string = init.json.data.sessionId;
    const agents = join(project, ".peaks", "_sub_agents", sid);
    const dispatch = ["sub-agent", "dispatch", "rd", "--prompt", "work", "--batch-id"];
    const first = await must([...dispatch, "first", "--json"]);
    const record: string = first.json.data.dispatchRecordPath ??
      recordPathOf(project, first.json.data.record);

    const beats = await storm(join(project, record), (i) =>
      peaks([
        "sub-agent",
        "heartbeat",
        "--record",
        record,
        "--status",
        "running",
        "--progress",
        String(i % 101),
        "--note",
        `beat ${i}`,
        "--json",
      ]));
    const kept = (await readJson(join(project, record))).heartbeats as Array<{ note: string }>;

    const channelPath = join(agents, "shared", "first.json");
    const shares = await storm(channelPath, (i) =>
      peaks([
        "sub-agent",
        "share",
        "--batch",
        "first",
        "--key",
        `k${i}`,
        "--value",
        `{"i":${i}}`,
        "--json",
      ]));
    const channel = await readJson(channelPath);

    const batchPath = join(agents, "batch-fan.json");
    const fan = await storm(batchPath, () => peaks([...dispatch, "fan", "--json"]));
    // Each envelope names its record; the record holds its number in the batch.
    const numbers: number[] = [];
    for (const r of fan.results) {
      const id = r.json?.data?.record;
      if (typeof id !== "string") continue;
      const record = await readJson(join(project, recordPathOf(project, id)));
      if (typeof record.dispatchedInBatch === "number") numbers.push(record.dispatchedInBatch);
    }
    const batch = await readJson(batchPath);

    return {
      n,
      parallel,
      heartbeat: {
        ...strip(beats),
        kept: kept.length,
        // The record keeps the newest 100 beats.
        lostUpdates: Math.min(n, 100) - new Set(kept.map((b) => b.note)).size,
      },
      share: {
        ...strip(shares),
        entries: channel.entries.length,
        lostUpdates: n - channel.entries.length,
      },
      dispatch: {
        ...strip(fan),
        lostUpdates: n - batch.members.length,
        duplicateNumbers: numbers.length - new Set(numbers).size,
        numberedOneToN: numbers.length === n &&
          [...numbers].sort((a, b) => a - b).every((v, i) => v === i + 1),
      },
    };
  } finally {
    await removeProject(project);
  }
}

if (import.meta.main) {
  const args = parseArgs(Deno.args, { string: ["n", "parallel"] });
  const home = await Deno.makeTempDir({ prefix: "peaks-conc-home-" });
  try {
    const report = await runConcurrency(checkoutTarget(), {
      n: Number(args.n ?? 64),
      parallel: Number(args.parallel ?? 64),
      env: await benchEnv(home),
    });
    console.log(JSON.stringify({ cpus: navigator.hardwareConcurrency, ...report }, null, 2));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}
