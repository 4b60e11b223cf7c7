/**
 * `deno task bench`: peaks' performance report. Times every hot command as a
 * whole process (median, p95, min, max, peak RSS; `node -e 0` and an empty
 * `deno run` for scale), storms one record, channel and batch with parallel
 * processes, weighs the orchestrator's envelopes and times the demo. With
 * `--compare "<command>"` every section also runs against that CLI, side by
 * side in the same run. Writes JSON and Markdown to bench/results/ and prints
 * the Markdown.
 */
import { join, parseArgs } from "../lib/infra/std.ts";
import { REPO } from "../tests/support/cli.ts";
import { runConcurrency } from "./concurrency.ts";
import { timeDemo } from "./demo_time.ts";
import { measureEnvelopes } from "./envelopes.ts";
import { inTable, runReferences, runScenario, type ScenarioRow } from "./hot.ts";
import { type Machine, renderMarkdown, type Report } from "./report.ts";
import { HOOK_SCENARIOS, SCENARIOS } from "./scenarios.ts";
import { measurePluginCost } from "./plugin_cost.ts";
import { profile } from "./profile.ts";
import { walkCost } from "./walk_cost.ts";
import { benchEnv, checkoutTarget, compareTarget, runCommand, shownPrefix } from "./target.ts";

const ALL_SCENARIOS = [...SCENARIOS, ...HOOK_SCENARIOS];

const USAGE = `usage: deno task bench [flags]

  --runs <n>              timed runs per command (default 30; --quick 3)
  --warmup <n>            warm-up runs per command (default 3; --quick 1)
  --only <a,b,...>        only these hot-command scenarios (names below)
  --compare "<command>"   also run every section against this CLI (argv prefix), side by side
  --compare-label <name>  column heading for --compare (default: compared)
  --n <n>                 processes per concurrency storm (default 64; --quick 16)
  --hook-runs <n>         timed runs per hook command, for its p99 (default 200; --quick 10)
  --no-hooks              skip the hook commands (\`peaks hooks run\`)
  --no-concurrency        skip the concurrency storms
  --no-envelopes          skip the envelope sizes
  --no-demo               skip the demo's wall time
  --no-walk               skip the literal-agent walk of a feature request (orchestrator bytes)
  --no-plugin             skip the skills' token cost as Claude Code's plugin details projects it
  --quick                 few runs, for a smoke test (the demo runs --fast only)
  --out <dir>             where to write the report (default bench/results)
  --profile <scenario>    only this: where one hot command's time goes (phases, files opened)

scenarios: ${ALL_SCENARIOS.map((s) => s.name).join(", ")}`;

// The skip flags are taken out first: this parseArgs knows no negatable booleans.
const SKIPS = [
  "--no-hooks",
  "--no-concurrency",
  "--no-envelopes",
  "--no-demo",
  "--no-plugin",
  "--no-walk",
];
const skip = (flag: string) => Deno.args.includes(flag);
const args = parseArgs(Deno.args.filter((arg) => !SKIPS.includes(arg)), {
  string: [
    "runs",
    "warmup",
    "hook-runs",
    "only",
    "compare",
    "compare-label",
    "out",
    "n",
    "profile",
  ],
  boolean: ["help", "quick"],
  unknown: (arg: string) => {
    console.error(`bench: unknown argument ${arg}\n\n${USAGE}`);
    Deno.exit(2);
  },
});
if (args.help) {
  console.log(USAGE);
  Deno.exit(0);
}

function count(name: string, fallback: number, min = 0): number {
  const value = args[name] === undefined ? fallback : Number(args[name]);
  if (!Number.isInteger(value) || value < min) {
    console.error(`bench: --${name} must be a whole number of at least ${min}`);
    Deno.exit(2);
  }
  return value;
}

const quick = Boolean(args.quick);
const runs = count("runs", quick ? 3 : 30, 1);
const warmup = count("warmup", quick ? 1 : 3);
const hookRuns = count("hook-runs", quick ? 10 : 200, 1);
const stormSize = count("n", quick ? 16 : 64, 1);
const rssRuns = quick ? 1 : 3;
const outDir = String(args.out ?? join(REPO, "bench", "results"));
const only = args.only ? String(args.only).split(",").map((s) => s.trim()).filter(Boolean) : null;
const unknown = only?.filter((name) => !ALL_SCENARIOS.some((s) => s.name === name)) ?? [];
if (unknown.length) {
  console.error(`bench: no scenario named ${unknown.join(", ")}\n\n${USAGE}`);
  Deno.exit(2);
}

const targets = [checkoutTarget()];
if (args.compare !== undefined) {
  try {
    targets.push(compareTarget(String(args.compare), args["compare-label"] as string | undefined));
  } catch (error) {
    console.error(`bench: --compare: ${error instanceof Error ? error.message : error}`);
    Deno.exit(2);
  }
}
if (new Set(targets.map((t) => t.label)).size !== targets.length) {
  console.error("bench: --compare-label must differ from peaks");
  Deno.exit(2);
}

const log = (line: string) => console.error(line);
const load = () => (Deno.build.os === "windows" ? null : Deno.loadavg()[0]);
/**
 * Other work on the machine skews absolute numbers; the report says how busy
 * it got while the hot commands ran (later sections load the machine themselves).
 */
function sampleLoad(): void {
  const now = load();
  if (now !== null) report.machine.loadMax = Math.max(report.machine.loadMax ?? 0, now);
}

async function machine(): Promise<Machine> {
  const cpuinfo = await Deno.readTextFile("/proc/cpuinfo").catch(() => "");
  const node = await runCommand(["node", "--version"], {
    cwd: Deno.cwd(),
    env: { PATH: Deno.env.get("PATH") ?? "" },
  });
  let memoryGiB: number | null = null;
  try {
    memoryGiB = Math.round(Deno.systemMemoryInfo().total / 1024 ** 3 * 10) / 10;
  } catch {
    memoryGiB = null;
  }
  return {
    os: Deno.build.os,
    osRelease: Deno.osRelease(),
    arch: Deno.build.arch,
    cpus: navigator.hardwareConcurrency,
    cpuModel: /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1].trim() ?? null,
    memoryGiB,
    deno: Deno.version.deno,
    node: node.code === 0 ? new TextDecoder().decode(node.stdout).trim() : null,
    loadStart: load(),
    loadMax: load(),
    loadEnd: null,
  };
}

const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "peaks-bench-home-" }));
const env = await benchEnv(home);
if (args.profile !== undefined) {
  const scenario = ALL_SCENARIOS.find((s) => s.name === args.profile);
  if (!scenario) {
    console.error(`bench: no scenario named ${args.profile}\n\n${USAGE}`);
    Deno.exit(2);
  }
  try {
    console.log(await profile(scenario, targets[0], env, quick ? 3 : 10));
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
  Deno.exit(0);
}
const plan = { runs, warmup, rssRuns, env, log };
const report: Report = {
  measuredAt: new Date().toISOString(),
  machine: await machine(),
  runs,
  warmup,
  rssRuns,
  targets: targets.map((t) => ({ label: t.label, command: shownPrefix(t.prefix), argv: t.prefix })),
  references: [],
  scenarios: [],
  skipped: [],
  concurrency: null,
  envelopes: null,
  demo: null,
  hooks: null,
  hookRuns,
};

try {
  for (const scenario of SCENARIOS) {
    if (only && !only.includes(scenario.name)) continue;
    if (!inTable(scenario)) {
      report.skipped.push({ name: scenario.name, reason: `no \`${scenario.command}\` command` });
      continue;
    }
    sampleLoad();
    report.scenarios.push(await runScenario(scenario, targets, plan));
  }
  if (!skip("--no-hooks")) {
    report.hooks = [];
    for (const scenario of HOOK_SCENARIOS) {
      if (only && !only.includes(scenario.name)) continue;
      if (!inTable(scenario)) continue;
      sampleLoad();
      report.hooks.push(await runScenario(scenario, targets, { ...plan, runs: hookRuns }));
    }
  }
  report.references = await runReferences(plan, home);
  sampleLoad();

  if (!skip("--no-concurrency")) {
    report.concurrency = [];
    for (const target of targets) {
      log(`bench: concurrency [${target.label}] ${stormSize} processes per storm`);
      try {
        const result = await runConcurrency(target, { n: stormSize, parallel: stormSize, env });
        report.concurrency.push({ target: target.label, result });
      } catch (error) {
        const failure = error instanceof Error ? error.message : String(error);
        report.concurrency.push({ target: target.label, result: null, failure });
      }
    }
  }
  if (!skip("--no-envelopes")) {
    log("bench: envelope sizes");
    report.envelopes = await measureEnvelopes(targets, env);
  }
  if (!skip("--no-demo")) {
    const variants: Array<"fast" | "default"> = quick ? ["fast"] : ["fast", "default"];
    report.demo = await timeDemo(targets, variants, log);
  }
  if (!skip("--no-walk")) {
    log("bench: literal-agent walk (feature)");
    report.walk = await walkCost();
  }
  if (!skip("--no-plugin")) {
    log("bench: skill tokens (claude plugin details)");
    report.plugin = await measurePluginCost(REPO);
  }
} finally {
  await Deno.remove(home, { recursive: true }).catch(() => {});
}
report.machine.loadEnd = load();

const markdown = renderMarkdown(report);
const json = `${JSON.stringify(report, null, 2)}\n`;
const stamp = report.measuredAt.replace(/[:.]/g, "-");
await Deno.mkdir(outDir, { recursive: true });
for (const name of [stamp, "latest"]) {
  await Deno.writeTextFile(join(outDir, `${name}.json`), json);
  await Deno.writeTextFile(join(outDir, `${name}.md`), markdown);
}
console.log(markdown);
log(`bench: wrote ${join(outDir, `${stamp}.json`)} and .md (also latest.json, latest.md)`);

// The checkout's own failures fail the run; a compared CLI's never do.
const own = targets[0].label;
const ownFailed =
  [...report.scenarios, ...report.hooks ?? []].some((row: ScenarioRow) =>
    row.results.some((r) => r.target === own && r.status !== "ok")
  ) ||
  (report.concurrency ?? []).some((c) =>
    c.target === own &&
    (!c.result || [c.result.heartbeat, c.result.share, c.result.dispatch].some((s) =>
      s.failures || s.lostUpdates || s.invalidReads
    ))
  ) ||
  (report.envelopes ?? []).some((e) =>
    e.results.some((r) => r.target === own && r.bytes === null)
  ) ||
  (report.demo ?? []).some((d) => d.target === own && !d.ok) ||
  Boolean(report.walk?.failure);
if (ownFailed) Deno.exit(1);
