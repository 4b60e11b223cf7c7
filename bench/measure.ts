/** Timing and memory of whole processes, as a user (or an LLM) starts them. */

export interface Sample {
  wallMs: number;
  code: number;
}

export interface Stats {
  runs: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  peakRssKb: number | null;
  failures: number;
}

export interface Invocation {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

async function spawn(
  invocation: Invocation,
  wrap: string[] = [],
): Promise<{ code: number; stderr: string }> {
  const [program, ...args] = [...wrap, ...invocation.command];
  const child = new Deno.Command(program, {
    args,
    cwd: invocation.cwd,
    env: invocation.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (invocation.stdin) await writer.write(new TextEncoder().encode(invocation.stdin));
  await writer.close().catch(() => {});
  const out = await child.output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

export async function timeOnce(invocation: Invocation): Promise<Sample> {
  const start = performance.now();
  const { code } = await spawn(invocation);
  return { wallMs: performance.now() - start, code };
}

const GNU_TIME = "/usr/bin/time";

/** Peak resident set size of one run, in KiB (GNU time, else python's rusage), or null. */
export async function peakRss(invocation: Invocation): Promise<number | null> {
  try {
    await Deno.stat(GNU_TIME);
    const { stderr } = await spawn(invocation, [GNU_TIME, "-f", "peaks-rss:%M"]);
    const match = /peaks-rss:(\d+)/.exec(stderr);
    if (match) return Number(match[1]);
  } catch {
    // no GNU time
  }
  try {
    const script =
      "import resource,subprocess,sys;subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);" +
      "print('peaks-rss:%d'%resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,file=sys.stderr)";
    const { stderr } = await spawn(invocation, ["python3", "-c", script]);
    const match = /peaks-rss:(\d+)/.exec(stderr);
    if (match) return Number(match[1]);
  } catch {
    // no python either
  }
  return null;
}

export async function measure(
  invocation: Invocation,
  runs: number,
  warmup: number,
): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await timeOnce(invocation);
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timeOnce(invocation));
  const times = samples.map((s) => s.wallMs).sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    runs,
    medianMs: round(percentile(times, 50)),
    p95Ms: round(percentile(times, 95)),
    minMs: round(times[0]),
    maxMs: round(times[times.length - 1]),
    peakRssKb: await peakRss(invocation),
    failures: samples.filter((s) => s.code !== 0).length,
  };
}
