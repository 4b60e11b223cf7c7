/**
 * `deno task bench --profile <scenario>`: where one hot command's time goes.
 * The call runs with PEAKS_PROFILE=1, which makes the kernel print how long
 * the process took to reach the command (runtime start and the kernel's own
 * modules), to load the command's modules, and to do its work and print;
 * an empty `deno run` beside it gives the runtime's floor. One more run under
 * strace (when installed) counts the files the call opens: peaks' modules,
 * npm package files and package.json reads, and the rest.
 */
import { invocation, prepare } from "./hot.ts";
import { removeProject, runCommand, type Target } from "./target.ts";
import type { Scenario } from "./scenario.ts";
import { join } from "../lib/infra/std.ts";

interface Phases {
  wallMs: number;
  toCommandMs: number;
  loadMs: number;
  workMs: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? Math.round(sorted[Math.floor(sorted.length / 2)] * 10) / 10 : NaN;
};

async function timedRun(
  command: string[],
  cwd: string,
  env: Record<string, string>,
  stdin?: string,
) {
  const start = performance.now();
  const out = await runCommand(command, { cwd, env: { ...env, PEAKS_PROFILE: "1" }, stdin });
  const wallMs = performance.now() - start;
  const line = /peaks-profile (\{.*\})/.exec(out.stderr)?.[1];
  return { wallMs, phases: line ? JSON.parse(line) : null, code: out.code };
}

/** Files one call opens, by kind, from an strace log; null without strace. */
async function openedFiles(command: string[], cwd: string, env: Record<string, string>) {
  const log = join(cwd, "..", `strace-${crypto.randomUUID()}.log`);
  const out = await runCommand(
    ["strace", "-f", "-qq", "-e", "trace=openat,open", "-o", log, ...command],
    { cwd, env },
  );
  if (out.code === 127 || out.code === -1) return null;
  const text = await Deno.readTextFile(log).catch(() => "");
  await Deno.remove(log).catch(() => {});
  const opened = [...text.matchAll(/open(?:at)?\([^"]*"([^"]+)"[^)]*\)\s*=\s*(-?\d+)/g)];
  const paths = opened.map((m) => m[1]);
  const count = (test: (p: string) => boolean) => paths.filter(test).length;
  const found = opened.filter((m) => !m[2].startsWith("-")).map((m) => m[1]);
  const isPeaks = (p: string) => /\/(lib|peaks)\b.*\.ts$/.test(p) && !isNpm(p);
  const modules = [...new Set(found.filter(isPeaks))].map((p) =>
    p.slice(p.lastIndexOf("/lib/") + 1)
  );
  const packages = new Map<string, Set<string>>();
  for (const p of found.filter((p) => isNpm(p) && /\.(m?js|cjs)$/.test(p))) {
    const name = npmPackage(p);
    packages.set(name, (packages.get(name) ?? new Set()).add(p));
  }
  return {
    total: paths.length,
    peaksModules: count(isPeaks),
    npmFiles: count(isNpm),
    packageJson: count((p) => p.endsWith("package.json")),
    modules: modules.sort(),
    packages: [...packages].map(([name, files]) => [name, files.size] as const),
  };
}

const isNpm = (p: string) => p.includes("/npm/") || p.includes("node_modules");

/** `zod@4.6.7` from a path in Deno's npm cache or a node_modules folder. */
function npmPackage(path: string): string {
  const cached = /\/npm\/[^/]+\/((?:@[^/]+\/)?[^/]+)\/([^/]+)\//.exec(path);
  if (cached) return `${cached[1]}@${cached[2]}`;
  const local = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  return local ? local[1] : "npm";
}

export async function profile(
  scenario: Scenario,
  target: Target,
  env: Record<string, string>,
  runs: number,
): Promise<string> {
  const lane = await prepare(scenario, target, env);
  if (lane.setupFailure) throw new Error(lane.setupFailure);
  const samples: Phases[] = [];
  const floors: number[] = [];
  const empty = join(lane.project!, "..", "empty.ts");
  await Deno.writeTextFile(empty, "");
  try {
    for (let i = 0; i < runs; i++) {
      const call = invocation(scenario, lane, env);
      const run = await timedRun(call.command, call.cwd, env, call.stdin);
      if (run.code !== 0 || !run.phases) throw new Error(`the call failed (exit ${run.code})`);
      samples.push({ wallMs: run.wallMs, ...run.phases });
      const floor = await timedRun([Deno.execPath(), "run", "-q", empty], call.cwd, env);
      floors.push(floor.wallMs);
    }
    const call = invocation(scenario, lane, env);
    const files = await openedFiles(call.command, call.cwd, env);
    return report(scenario, samples, median(floors), files, runs);
  } finally {
    await Deno.remove(empty).catch(() => {});
    if (lane.project) await removeProject(lane.project);
  }
}

function report(
  scenario: Scenario,
  samples: Phases[],
  floor: number,
  files: Awaited<ReturnType<typeof openedFiles>>,
  runs: number,
): string {
  const m = (key: keyof Phases) => median(samples.map((s) => s[key]));
  const wall = m("wallMs");
  const toCommand = m("toCommandMs");
  const rows = [
    ["the runtime's floor (an empty `deno run`, wall)", floor],
    ["start-up to the command (runtime start, kernel modules, argv)", toCommand],
    ["loading the command's modules", m("loadMs")],
    ["the command's own work and output", m("workMs")],
    [
      "the rest (process start and exit outside the runtime's clock)",
      wall - toCommand - m("loadMs") - m("workMs"),
    ],
    ["whole call (wall)", wall],
  ];
  const lines = [
    `# Profile: \`${scenario.shown}\``,
    "",
    `Medians of ${runs} runs with PEAKS_PROFILE=1, each beside an empty \`deno run\`.`,
    "",
    "| phase | ms |",
    "|---|--:|",
    ...rows.map(([name, ms]) => `| ${name} | ${(ms as number).toFixed(1)} |`),
    "",
  ];
  if (files) {
    lines.push(
      "Files opened by one call (strace):",
      "",
      "| kind | opens |",
      "|---|--:|",
      `| peaks modules | ${files.peaksModules} |`,
      `| npm package files (package.json among them: ${files.packageJson}) | ${files.npmFiles} |`,
      `| all | ${files.total} |`,
      "",
      `npm modules loaded: ${
        files.packages.map(([name, n]) => `${name} ${n}`).join(", ") || "none"
      }.`,
      "",
      `peaks modules loaded (${files.modules.length}): ${files.modules.join(", ")}.`,
      "",
    );
  } else lines.push("strace is not installed: no file counts.", "");
  return lines.join("\n");
}
