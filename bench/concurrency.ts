/**
 * Concurrency benchmark: N real peaks processes (the binary's permissions,
 * -P=peaks) hitting one record, one shared channel or one batch at the same
 * time. Prints JSON: wall time, throughput, lost updates and invalid reads
 * (a reader polls the contended file during the storm).
 *
 *     deno run -q --allow-all bench/concurrency.ts [--n 64] [--parallel 64]
 */
import { parseArgs } from "../lib/core/std.ts";
import { join } from "../lib/core/std.ts";
import { baseEnv, peaksArgs, pool } from "../tests/support/cli.ts";

const args = parseArgs(Deno.args, { string: ["n", "parallel"] });
const n = Number(args.n ?? 64);
const parallel = Math.min(Number(args.parallel ?? 64), n);

const project = await Deno.realPath(await Deno.makeTempDir({ prefix: "peaks-conc-" }));
const env = { ...(await baseEnv({ cwd: project })), CLAUDECODE: "1" };

// deno-lint-ignore no-explicit-any
async function peaks(argv: string[]): Promise<{ code: number; json: any }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: peaksArgs(argv),
    cwd: project,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).output();
  let json = undefined;
  try {
    json = JSON.parse(new TextDecoder().decode(out.stdout));
  } catch {
    json = undefined;
  }
  return { code: out.code, json };
}

/** Polls `path` until `stop` settles; counts reads that did not parse as JSON. */
async function pollReads(path: string, stop: Promise<unknown>) {
  let done = false;
  stop.finally(() => (done = true));
  let reads = 0;
  let invalid = 0;
  while (!done) {
    try {
      JSON.parse(await Deno.readTextFile(path));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) invalid++;
    }
    reads++;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return { reads, invalid };
}

async function storm(path: string, run: (i: number) => Promise<{ code: number; json: unknown }>) {
  const started = performance.now();
  const all = pool(n, parallel, run);
  const reads = pollReads(path, all);
  const results = await all;
  const wallMs = performance.now() - started;
  return {
    results,
    wallMs: Math.round(wallMs),
    throughputPerSec: Math.round((n / wallMs) * 1000 * 10) / 10,
    failures: results.filter((r) => r.code !== 0).length,
    ...(await reads),
  };
}

const init = await peaks(["workspace", "init", "--json"]);
const sid: string = init.json.data.sessionId;
const agents = join(project, ".peaks", "_sub_agents", sid);

const first = await peaks([
  "sub-agent",
  "dispatch",
  "rd",
  "--prompt",
  "work",
  "--batch-id",
  "first",
  "--json",
]);
const record: string = first.json.data.dispatchRecordPath;
const heartbeat = await storm(join(project, record), (i) =>
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
const kept = JSON.parse(await Deno.readTextFile(join(project, record))).heartbeats as Array<
  { note: string }
>;

const share = await storm(
  join(agents, "shared", "first.json"),
  (i) =>
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
    ]),
);
const channel = JSON.parse(await Deno.readTextFile(join(agents, "shared", "first.json")));

const dispatch = await storm(
  join(agents, "batch-fan.json"),
  () => peaks(["sub-agent", "dispatch", "qa", "--prompt", "x", "--batch-id", "fan", "--json"]),
);
const numbers = dispatch.results.map((r) =>
  (r.json as { data?: { dispatchedInBatch?: number } })?.data?.dispatchedInBatch
).filter((v): v is number => typeof v === "number");
const batch = JSON.parse(await Deno.readTextFile(join(agents, "batch-fan.json")));

const strip = ({ results: _results, ...rest }: Awaited<ReturnType<typeof storm>>) => rest;
const report = {
  measuredAt: new Date().toISOString(),
  n,
  parallel,
  cpus: navigator.hardwareConcurrency,
  heartbeat: {
    ...strip(heartbeat),
    kept: kept.length,
    lostUpdates: Math.min(n, 100) - new Set(kept.map((b) => b.note)).size,
  },
  share: {
    ...strip(share),
    entries: channel.entries.length,
    lostUpdates: n - channel.entries.length,
  },
  dispatch: {
    ...strip(dispatch),
    batchCount: batch.count,
    duplicateNumbers: numbers.length - new Set(numbers).size,
    lostUpdates: n - batch.members.length,
    numberedOneToN: [...numbers].sort((a, b) => a - b).every((v, i) => v === i + 1) &&
      numbers.length === n,
  },
};
console.log(JSON.stringify(report, null, 2));
await Deno.remove(project, { recursive: true });
