/**
 * Section 4: the demo's wall time, the whole workflow end to end. `--fast`
 * has the stand-in sub-agents answer at once, so it is mostly peaks calls;
 * the default run paces them like slow agents. Each run gets its own folder.
 */
import { join } from "../lib/infra/std.ts";
import { commandLine } from "../lib/infra/shell.ts";
import { cacheDir, REPO } from "../tests/support/cli.ts";
import { runCommand, type Target } from "./target.ts";

export interface DemoRun {
  variant: "fast" | "default";
  target: string;
  ok: boolean;
  wallMs: number;
  /** From the demo's summary line. */
  peaksCalls: number | null;
  medianCallMs: number | null;
  failure?: string;
}

async function runDemo(target: Target, variant: "fast" | "default", checkout: boolean) {
  const out = await Deno.makeTempDir({ prefix: "peaks-bench-demo-" });
  const args = [
    "run",
    "-q",
    "-A",
    "--frozen",
    "--cached-only",
    "--config",
    join(REPO, "deno.json"),
    join(REPO, "demo", "run.ts"),
    "--out",
    out,
    ...(variant === "fast" ? ["--fast"] : []),
    // The checkout's peaks is the demo's default; any other target is handed over.
    ...(checkout ? [] : ["--peaks", commandLine(target.prefix)]),
  ];
  const started = performance.now();
  const result = await runCommand([Deno.execPath(), ...args], {
    cwd: out,
    env: { HOME: out, PATH: Deno.env.get("PATH") ?? "", DENO_DIR: await cacheDir() },
    timeoutMs: 600_000,
  });
  const wallMs = Math.round(performance.now() - started);
  await Deno.remove(out, { recursive: true }).catch(() => {});
  const text = new TextDecoder().decode(result.stdout);
  const summary = /(\d+) peaks calls, median (\d+) ms each/.exec(text);
  const run: DemoRun = {
    variant,
    target: target.label,
    ok: result.code === 0,
    wallMs,
    peaksCalls: summary ? Number(summary[1]) : null,
    medianCallMs: summary ? Number(summary[2]) : null,
  };
  if (result.code !== 0) {
    const lines = `${result.stderr}\n${text}`.split("\n").map((l) => l.trim()).filter(Boolean);
    run.failure = lines.find((l) => l.startsWith("demo stopped")) ?? lines.at(-1) ??
      `exit ${result.code}`;
  }
  return run;
}

/** Runs the demo per target: fast runs first, then (unless skipped) default runs. */
export async function timeDemo(
  targets: Target[],
  variants: Array<"fast" | "default">,
  log: (line: string) => void,
): Promise<DemoRun[]> {
  const runs: DemoRun[] = [];
  for (const variant of variants) {
    for (const [i, target] of targets.entries()) {
      const run = await runDemo(target, variant, i === 0);
      log(`bench: demo ${variant} [${target.label}] ${run.ok ? `${run.wallMs} ms` : "failed"}`);
      runs.push(run);
    }
  }
  return runs;
}
