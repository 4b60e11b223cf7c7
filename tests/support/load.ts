/**
 * A load run: N sub-agents heartbeating on a fixed cadence while `watch`
 * runs, `list` and `status` poll and `share` writes go on beside them, all as
 * real peaks processes with the binary's permissions. Afterwards it checks
 * that nothing was lost: each record keeps exactly the newest beats its agent
 * reported as stored (in order), and every share that succeeded is in the
 * channel. bench/load.ts prints the latency distribution; the load test only
 * checks correctness.
 */
import { heartbeatArgs, recordPathOf } from "./subagent.ts";
import { baseEnv, peaksArgs } from "./cli.ts";
import { checkState } from "./state_check.ts";
import { MAX_HEARTBEATS } from "../../lib/state/record.ts";

export interface LoadOptions {
  root: string;
  agents: number;
  intervalMs: number;
  durationMs: number;
  sharers: number;
  pollGapMs: number;
}

export interface Latency {
  count: number;
  failed: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface LoadResult {
  agents: number;
  intervalMs: number;
  durationMs: number;
  commands: Record<string, Latency>;
  beatsPerSecond: number;
  lostUpdates: string[];
  lockTimeouts: number;
  failures: string[];
  watchLines: number;
  stateViolations: string[];
}

interface Call {
  code: number;
  ms: number;
  // deno-lint-ignore no-explicit-any
  json: any;
  stdout: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, i)] * 10) / 10;
}

/** One peaks process in the project, with the binary's permissions and a clean environment. */
async function spawnPeaks(root: string, argv: string[]): Promise<Deno.CommandOutput> {
  return new Deno.Command(Deno.execPath(), {
    args: peaksArgs(argv),
    cwd: root,
    env: { ...(await baseEnv({ cwd: root })), CLAUDECODE: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { root } = options;
  const times: Record<string, number[]> = {};
  const failed: Record<string, number> = {};
  const failures: string[] = [];
  let lockTimeouts = 0;

  async function peaks(kind: string, argv: string[]): Promise<Call> {
    const started = performance.now();
    const out = await spawnPeaks(root, [...argv, "--json"]);
    const ms = performance.now() - started;
    const stdout = new TextDecoder().decode(out.stdout);
    let json = undefined;
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
    (times[kind] ??= []).push(ms);
    if (json?.code === "LOCK_TIMEOUT") lockTimeouts++;
    if (out.code !== 0) {
      failed[kind] = (failed[kind] ?? 0) + 1;
      failures.push(`${kind} exit ${out.code}: ${stdout.slice(0, 200)}`);
    }
    return { code: out.code, ms, json, stdout };
  }

  const init = await peaks("setup", ["workspace", "init"]);
  const sid: string = init.json.data.sessionId;
  const batch = "load";
  const records: string[] = [];
  for (let i = 0; i < options.agents; i++) {
    const d = await peaks("dispatch", [
      "sub-agent",
      "dispatch",
      `agent-${i}`,
      "--batch-id",
      batch,
      "--prompt",
      `load agent ${i}`,
    ]);
    records.push(recordPathOf(root, d.json.data.record));
  }

  const started = performance.now();
  const running = () => performance.now() - started < options.durationMs;
  const stored: string[][] = records.map(() => []);
  const shared: string[] = [];

  const beaters = records.map(async (record, agent) => {
    let i = 0;
    while (running()) {
      const tick = performance.now();
      const note = `a${agent}-b${i++}`;
      const r = await peaks("heartbeat", [
        ...heartbeatArgs(record, String(i % 100)),
        "--note",
        note,
      ]);
      if (r.code === 0) stored[agent].push(note);
      await sleep(options.intervalMs - (performance.now() - tick));
    }
  });
  const poller = (kind: string, argv: string[]) =>
    (async () => {
      while (running()) {
        await peaks(kind, argv);
        await sleep(options.pollGapMs);
      }
    })();
  const sharers = Array.from({ length: options.sharers }, (_, s) =>
    (async () => {
      let i = 0;
      while (running()) {
        const key = `s${s}.k${i++}`;
        const r = await peaks("share", [
          "sub-agent",
          "share",
          "--batch",
          batch,
          "--key",
          key,
          "--value",
          `{"n":${i}}`,
        ]);
        if (r.code === 0) shared.push(key);
        await sleep(options.pollGapMs);
      }
    })());
  const watch = (async () => {
    const out = await spawnPeaks(root, [
      "sub-agent",
      "watch",
      "--batch",
      batch,
      "--interval",
      "500ms",
      "--timeout",
      `${options.durationMs}ms`,
    ]);
    // Timing out with every member still running is exit 3 by design.
    if (out.code !== 3) failures.push(`watch exit ${out.code}`);
    return new TextDecoder().decode(out.stdout).split("\n").filter(Boolean).length;
  })();

  await Promise.all([
    ...beaters,
    poller("list", ["sub-agent", "list", "--batch", batch]),
    poller("status", ["sub-agent", "status", "--batch", batch]),
    ...sharers,
  ]);
  const watchLines = await watch;
  const elapsed = performance.now() - started;

  const state = await checkState(root);
  const lostUpdates: string[] = [];
  records.forEach((record, agent) => {
    const kept = state.records.get(record.replace(/^\.peaks\//, ""))?.heartbeats.map((b) => b.note);
    const expected = stored[agent].slice(-MAX_HEARTBEATS);
    if (JSON.stringify(kept) !== JSON.stringify(expected)) {
      lostUpdates.push(
        `${record}: kept ${kept?.length} beats, expected the last ${expected.length}`,
      );
    }
  });
  const channel = state.channels.get(`_sub_agents/${sid}/shared/${batch}.json`);
  const keys = new Set(channel?.entries.map((e) => e.key));
  for (const key of shared) if (!keys.has(key)) lostUpdates.push(`share ${key} missing`);

  const commands: Record<string, Latency> = {};
  for (const [kind, list] of Object.entries(times)) {
    const sorted = [...list].sort((a, b) => a - b);
    commands[kind] = {
      count: sorted.length,
      failed: failed[kind] ?? 0,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      max: percentile(sorted, 100),
    };
  }
  const beats = stored.reduce((n, s) => n + s.length, 0);
  return {
    agents: options.agents,
    intervalMs: options.intervalMs,
    durationMs: Math.round(elapsed),
    commands,
    beatsPerSecond: Math.round((beats / elapsed) * 10_000) / 10,
    lostUpdates,
    lockTimeouts,
    failures,
    watchLines,
    stateViolations: state.violations,
  };
}
