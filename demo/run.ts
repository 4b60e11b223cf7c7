/**
 * `deno task demo`: the whole peaks workflow on a copy of the bundled sample
 * project, driven by the runbook of skills/peaks-code exactly as an agent
 * following the skill would. Sub-agents run as detached vendor processes; the
 * vendor is a scripted stand-in unless `--vendor <cli>` names a real one.
 *
 *   deno task demo [--vendor claude] [--in-process] [--fast] [--out <dir>] [--peaks <command>]
 *
 * `--peaks` runs another peaks (e.g. an installed binary) instead of this checkout. The project is
 * kept for a look afterwards; the last lines print the command that removes it.
 */
import { parseArgs } from "../lib/infra/std.ts";
import { join } from "../lib/infra/std.ts";
import {
  type Envelope,
  RunbookError,
  type RunbookEvent,
  runbookPath,
  runRunbook,
} from "./runbook.ts";
import { agentStep } from "./agent_steps.ts";
import { copySampleProject } from "./sample.ts";
import { splitCommandLine } from "../lib/infra/shell.ts";
import { cacheDir, peaksArgs, REPO } from "../tests/support/cli.ts";
import {
  memberLine,
  onPath,
  peaksFilesSummary,
  removalCommand,
  splitChange,
  useColor,
  withoutEta,
} from "./report.ts";

const args = parseArgs(Deno.args, {
  string: ["vendor", "out", "peaks"],
  boolean: ["in-process", "fast", "help"],
});
if (args.help) {
  console.log(
    "usage: deno task demo [--vendor <claude|codex|...>] [--in-process] [--fast] [--out <dir>] " +
      "[--peaks <command>]",
  );
  Deno.exit(0);
}

const tty = useColor(Deno.stdout.isTerminal(), Deno.env.get("NO_COLOR"));
const paint = (code: string, text: string) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = (t: string) => paint("1", t);
const dim = (t: string) => paint("2", t);
const green = (t: string) => paint("32", t);
const red = (t: string) => paint("31", t);

// A real vendor CLI is checked before anything is copied or run.
if (args.vendor && !args["in-process"]) {
  const name = String(args.vendor);
  const windows = Deno.build.os === "windows";
  if (!(await onPath(name, Deno.env.get("PATH") ?? "", windows))) {
    console.error(
      `demo: --vendor ${name} needs the ${name} CLI on PATH, and it is not there. Install it, ` +
        "or run the demo without --vendor to use the scripted stand-in.",
    );
    Deno.exit(2);
  }
}

const started = performance.now();
const base = args.out ? String(args.out) : await Deno.makeTempDir({ prefix: "peaks-demo-" });
const root = join(base, "team-directory");
const home = join(base, "home");
const bin = join(base, "bin");
await Deno.mkdir(home, { recursive: true });
await Deno.mkdir(bin, { recursive: true });
await copySampleProject(root);

const deno = Deno.execPath();
const peaks = args.peaks ? splitCommandLine(String(args.peaks)) : [deno, ...peaksArgs([])];
const mode = args["in-process"] ? "in-process" : "detached";
const vendor = args.vendor ? String(args.vendor) : "claude";
const standIn = [deno, "run", "-q", "-A", join(REPO, "demo", "stand_in", "agent.ts")];

// The stand-in answers as the vendor CLI, and a `peaks` on PATH runs this checkout.
const script = (argv: string[]) => `#!/bin/sh\nexec ${argv.map((a) => `'${a}'`).join(" ")} "$@"\n`;
await Deno.writeTextFile(join(bin, "peaks"), script(peaks));
await Deno.chmod(join(bin, "peaks"), 0o755);
if (!args.vendor && mode === "detached") {
  await Deno.writeTextFile(join(bin, vendor), script(standIn));
  await Deno.chmod(join(bin, vendor), 0o755);
}

const env: Record<string, string> = {
  HOME: home,
  PATH: `${bin}:${Deno.env.get("PATH") ?? ""}`,
  DENO_DIR: await cacheDir(),
  NO_COLOR: "1",
  STAND_IN_PEAKS: JSON.stringify(peaks),
  STAND_IN_STEP_MS: args.fast ? "0" : "900",
  // In-process runs play a host with a sub-agent tool; detached runs one without (Codex-like).
  ...(mode === "in-process" ? { CLAUDECODE: "1" } : { CODEX_MANAGED_BY_NPM: "1" }),
};

// The scripted stand-in takes seconds, so a real host's ETA would mislead; members show their time.
const scripted = !args.vendor || mode === "in-process";
const times: number[] = [];
function report(event: RunbookEvent): void {
  if (event.type === "section") console.log(`\n${bold(event.section)}`);
  if (event.type === "agent") console.log(dim(`  · agent: ${event.text}`));
  if (event.type === "status") console.log(`  ${scripted ? withoutEta(event.line) : event.line}`);
  if (event.type === "member") {
    console.log(`  ${memberLine(event.role, event.status, event.seconds)}`);
  }
  if (event.type === "command") {
    if (event.text.startsWith("peaks ")) times.push(event.ms);
    const mark = event.code === 0 ? green("✓") : red("✗");
    const shown = event.text.replace(root, ".").replace(
      /--result-json '?\{.*\}'?/,
      "--result-json '<return json>'",
    );
    const warnings = (event.envelope?.warnings ?? []).map((w) => w.code).join(", ");
    console.log(
      `  ${mark} ${shown.length > 110 ? `${shown.slice(0, 107)}...` : shown} ${
        dim(`${Math.round(event.ms)} ms`)
      }${warnings ? dim(` [${warnings}]`) : ""}`,
    );
  }
}

console.log(bold("peaks demo: one feature request through the whole workflow"));
console.log(`project: ${root} (a copy of demo/sample-project, a git repository)`);
console.log(
  `sub-agents: ${
    mode === "detached"
      ? `detached ${vendor} processes${args.vendor ? "" : " (the scripted stand-in)"}`
      : "in-process tool calls (the scripted stand-in)"
  }`,
);

let state;
try {
  state = await runRunbook(await Deno.readTextFile(runbookPath(REPO)), {
    root,
    peaks,
    standIn,
    env,
    mode,
    vendor,
    vars: {
      rid: "001-profile-page",
      type: "feature",
      mode: "full-auto",
      title: "Member profile page with avatar upload",
    },
    agent: agentStep,
    report,
  });
} catch (error) {
  console.error(red(`\ndemo stopped: ${error instanceof RunbookError ? error.message : error}`));
  console.error(`the project is kept at ${root}; remove it with: ${removalCommand(base)}`);
  Deno.exit(1);
}

async function peaksJson(...argv: string[]): Promise<Envelope> {
  const out = await new Deno.Command(peaks[0], {
    args: [...peaks.slice(1), ...argv, "--json"],
    cwd: root,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const records = (await peaksJson("sub-agent", "list", "--limit", "100")).data?.records as
  | Array<{ role: string; status: string; artifactMetas?: unknown[] }>
  | undefined ?? [];
const requests =
  (await peaksJson("request", "list")).data?.requests as Array<{ role: string; state: string }> ??
    [];
// New files count too (git diff alone misses them); what peaks wrote itself is not the product.
const status = await new Deno.Command("git", {
  args: ["status", "--porcelain", "--untracked-files=all"],
  cwd: root,
  stdout: "piped",
}).output();
const change = splitChange(new TextDecoder().decode(status.stdout));
const sorted = [...times].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
const seconds = ((performance.now() - started) / 1000).toFixed(1);

console.log(`\n${bold("Summary")}`);
console.log(
  `  wall time ${seconds} s; ${times.length} peaks calls, median ${Math.round(median)} ms each`,
);
console.log(
  `  sub-agents: ${records.length} (${records.map((r) => `${r.role} ${r.status}`).join(", ")})`,
);
console.log(
  `  artefacts registered: ${records.reduce((n, r) => n + (r.artifactMetas?.length ?? 0), 0)}`,
);
console.log(`  requests: ${requests.map((r) => `${r.role} ${r.state}`).join(", ")}`);
console.log(`  product change (the sub-agents' work, for review):`);
for (const line of change.product) console.log(`    ${line}`);
console.log(`  written by peaks itself: ${peaksFilesSummary(change.peaks)}`);
console.log(`\n${bold("Where to look")}`);
console.log(`  ${root}/.peaks/_runtime/${state.vars.sid}/`);
console.log(dim("    the requests, design draft, tech doc, test cases, test report and handoff"));
const shots = join(root, ".peaks", "_runtime", state.vars.sid, "qa", "screenshots");
for (const entry of await Array.fromAsync(Deno.readDir(shots)).catch(() => [])) {
  console.log(`  ${join(shots, entry.name)}`);
  console.log(dim("    the members page as headless Chromium saw it (the UI step's screenshot)"));
}
console.log(`  ${root}/CLAUDE.md`);
console.log(dim("    the standards block peaks wrote from the scan"));
console.log(`  cd ${root} && git status && git diff`);
console.log(dim("    the change the rd sub-agent left for review (peaks never commits it)"));
console.log(`\n${bold("Clean up")}`);
console.log(`  ${removalCommand(base)}`);
console.log(dim("    removes the demo's folder: the project, its HOME and the stand-in scripts"));
console.log(
  `\n${
    green("done")
  }: the feature request went from PRD to handoff (txt finalized) in ${seconds} s`,
);
