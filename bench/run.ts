/**
 * `deno task bench`: times peaks commands as whole processes (median, p95,
 * peak RSS) with `node -e 0` in the same run for scale, and writes JSON and
 * a Markdown table. `--compare "<command>"` runs the same scenarios against
 * another peaks (e.g. an installed binary) side by side.
 */
import { parseArgs } from "../lib/core/std.ts";
import { join } from "../lib/core/std.ts";
import { cacheDir, peaksArgs, REPO } from "../tests/support/cli.ts";
import { measure, type Stats } from "./measure.ts";
import { SCENARIOS } from "./scenarios.ts";

const args = parseArgs(Deno.args, {
  string: ["runs", "warmup", "out", "only", "compare"],
  boolean: ["help"],
});
if (args.help) {
  console.log(
    "usage: deno task bench [--runs 30] [--warmup 3] [--only name,...] [--compare '<peaks command>'] [--out dir]",
  );
  Deno.exit(0);
}
const runs = Number(args.runs ?? 30);
const warmup = Number(args.warmup ?? 3);
const outDir = String(args.out ?? join(REPO, "bench", "results"));
const only = args.only ? String(args.only).split(",") : undefined;
const compare = args.compare ? String(args.compare).split(/\s+/).filter(Boolean) : undefined;

const home = await Deno.makeTempDir({ prefix: "peaks-bench-home-" });
const env = {
  HOME: home,
  PATH: Deno.env.get("PATH") ?? "",
  DENO_DIR: await cacheDir(),
  NO_COLOR: "1",
};

const targets: Array<{ label: string; prefix: string[] }> = [
  { label: "peaks (deno run, binary permissions)", prefix: [Deno.execPath(), ...peaksArgs([])] },
];
if (compare) targets.push({ label: compare.join(" "), prefix: compare });

async function runJson(prefix: string[], cwd: string, argv: string[]): Promise<unknown> {
  const out = await new Deno.Command(prefix[0], {
    args: [...prefix.slice(1), ...argv],
    cwd,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface Row {
  scenario: string;
  results: Array<{ target: string } & Stats>;
}

const rows: Row[] = [];
for (const scenario of SCENARIOS) {
  if (only && !only.includes(scenario.name)) continue;
  const row: Row = { scenario: scenario.name, results: [] };
  for (const target of targets) {
    const project = await Deno.makeTempDir({ prefix: "peaks-bench-" });
    if (scenario.setup) {
      await scenario.setup((argv) => runJson(target.prefix, project, argv), project);
    }
    const stats = await measure(
      { command: [...target.prefix, ...scenario.args], cwd: project, env, stdin: scenario.stdin },
      runs,
      warmup,
    );
    row.results.push({ target: target.label, ...stats });
    await Deno.remove(project, { recursive: true });
    console.error(`bench: ${scenario.name} [${target.label}] median ${stats.medianMs} ms`);
  }
  rows.push(row);
}

const reference = await measure({ command: ["node", "-e", "0"], cwd: home, env }, runs, warmup)
  .catch(() => null);

const report = {
  measuredAt: new Date().toISOString(),
  machine: {
    os: Deno.build.os,
    arch: Deno.build.arch,
    deno: Deno.version.deno,
    cpus: navigator.hardwareConcurrency,
  },
  runs,
  warmup,
  reference: reference ? { command: "node -e 0", ...reference } : null,
  scenarios: rows,
};

const header = [
  "scenario",
  ...targets.flatMap((t) => [`${t.label} median ms`, "p95 ms", "peak RSS MiB"]),
];
const mib = (kb: number | null) => (kb === null ? "-" : (kb / 1024).toFixed(1));
const lines = [
  `| ${header.join(" | ")} |`,
  `|${header.map(() => "---").join("|")}|`,
  ...rows.map((row) =>
    `| \`${row.scenario}\` | ${
      row.results.map((r) => `${r.medianMs} | ${r.p95Ms} | ${mib(r.peakRssKb)}`).join(" | ")
    } |`
  ),
];
if (reference) {
  lines.push(
    `| \`node -e 0\` (scale) | ${reference.medianMs} | ${reference.p95Ms} | ${
      mib(reference.peakRssKb)
    }${" | - | - | -".repeat(targets.length - 1)} |`,
  );
}
const table = lines.join("\n");

await Deno.mkdir(outDir, { recursive: true });
const stamp = report.measuredAt.replace(/[:.]/g, "-");
await Deno.writeTextFile(
  join(outDir, `bench-${stamp}.json`),
  `${JSON.stringify(report, null, 2)}\n`,
);
await Deno.writeTextFile(join(outDir, `bench-${stamp}.md`), `${table}\n`);
await Deno.writeTextFile(join(outDir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
console.log(table);
await Deno.remove(home, { recursive: true });
