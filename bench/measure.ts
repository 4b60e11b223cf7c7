/** Timing and memory of whole processes, as a user (or an LLM) starts them. */
import { failureReason, type Output, runCommand } from "./target.ts";

export interface Invocation {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
}

export interface Sample {
  wallMs: number;
  code: number;
  /** Why the run failed (exit code non-zero); undefined when it succeeded. */
  failure?: string;
}

/** Timings are over the runs that succeeded; a failed run is counted, never timed. */
export interface Stats {
  status: "ok" | "partial" | "failed";
  runs: number;
  failures: number;
  medianMs: number | null;
  p95Ms: number | null;
  /** Meaningful with many runs (the hooks section's); with 30 it is the second-largest. */
  p99Ms: number | null;
  minMs: number | null;
  maxMs: number | null;
  peakRssKb: number | null;
  /** The first failure's reason (setup or run), when there was one. */
  failure?: string;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

export async function timeOnce(invocation: Invocation): Promise<Sample & { out: Output }> {
  const start = performance.now();
  const out = await runCommand(invocation.command, invocation);
  const wallMs = performance.now() - start;
  return { wallMs, code: out.code, out, failure: out.code === 0 ? undefined : failureReason(out) };
}

const GNU_TIME = "/usr/bin/time";
let rssTool: "time" | "python" | "none" | undefined;

async function pickRssTool(): Promise<"time" | "python" | "none"> {
  if (rssTool) return rssTool;
  const probe = { cwd: Deno.cwd(), env: { PATH: Deno.env.get("PATH") ?? "" } };
  if ((await runCommand([GNU_TIME, "-f", "%M", "true"], probe)).code === 0) return rssTool = "time";
  if ((await runCommand(["python3", "-c", "0"], probe)).code === 0) return rssTool = "python";
  return rssTool = "none";
}

/** Peak resident set size of one run in KiB (GNU time, else python's rusage), or null. */
export async function peakRss(invocation: Invocation): Promise<number | null> {
  const tool = await pickRssTool();
  if (tool === "none") return null;
  const wrap = tool === "time" ? [GNU_TIME, "-f", "peaks-rss:%M"] : [
    "python3",
    "-c",
    "import resource,subprocess,sys;subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);" +
    "print('peaks-rss:%d'%resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,file=sys.stderr)",
  ];
  const out = await runCommand([...wrap, ...invocation.command], invocation);
  const match = /peaks-rss:(\d+)/.exec(out.stderr);
  return match ? Number(match[1]) : null;
}

const round = (n: number) => Math.round(n * 10) / 10;

export function summarize(samples: Sample[], peakRssKb: number | null): Stats {
  const times = samples.filter((s) => s.code === 0).map((s) => s.wallMs).sort((a, b) => a - b);
  const failed = samples.filter((s) => s.code !== 0);
  const stat = (value: number) => (times.length ? round(value) : null);
  return {
    status: times.length === 0 ? "failed" : failed.length ? "partial" : "ok",
    runs: samples.length,
    failures: failed.length,
    medianMs: stat(percentile(times, 50)),
    p95Ms: stat(percentile(times, 95)),
    p99Ms: stat(percentile(times, 99)),
    minMs: stat(times[0]),
    maxMs: stat(times[times.length - 1]),
    peakRssKb,
    ...(failed.length ? { failure: failed[0].failure } : {}),
  };
}

/** A column that could not run at all (its setup failed). */
export function failedStats(reason: string): Stats {
  return {
    status: "failed",
    runs: 0,
    failures: 0,
    medianMs: null,
    p95Ms: null,
    p99Ms: null,
    minMs: null,
    maxMs: null,
    peakRssKb: null,
    failure: reason,
  };
}
