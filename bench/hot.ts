/**
 * Section 1: the hot commands. Each scenario is prepared once per target in
 * its own project; then the targets' runs alternate (A B, B A, ...) so a
 * machine that gets busier mid-run weighs on every column alike.
 */
import { COMMANDS } from "../lib/cli/table.ts";
import { type Invocation, peakRss, type Sample, type Stats, summarize } from "./measure.ts";
import { failedStats, timeOnce } from "./measure.ts";
import { argsFor, type Scenario, type Vars } from "./scenario.ts";
import {
  makeProject,
  peaksIn,
  removeProject,
  runCommand,
  SetupError,
  type Target,
} from "./target.ts";

export interface Plan {
  runs: number;
  warmup: number;
  /** Extra runs under GNU time for peak RSS (the maximum is reported). */
  rssRuns: number;
  env: Record<string, string>;
  log: (line: string) => void;
}

export interface ScenarioRow {
  name: string;
  command: string;
  shown: string;
  /** One entry per target, in target order. */
  results: Array<{ target: string } & Stats>;
}

export interface Skipped {
  name: string;
  reason: string;
}

/** A scenario whose command left the table is skipped, so the bench follows the CLI. */
export function inTable(scenario: Scenario): boolean {
  return scenario.command === "" || COMMANDS.some((c) => c.name === scenario.command);
}

export interface Lane {
  target: Target;
  project?: string;
  vars: Vars;
  calls: number;
  samples: Sample[];
  rssKb: number | null;
  setupFailure?: string;
}

/** A scenario's project, made and set up once for one target. */
export async function prepare(
  scenario: Scenario,
  target: Target,
  env: Record<string, string>,
): Promise<Lane> {
  const lane: Lane = { target, vars: {}, calls: 0, samples: [], rssKb: null };
  try {
    lane.project = await makeProject(scenario.project);
    const project = lane.project;
    const tools = {
      project,
      peaks: (argv: string[], stdin?: string) => peaksIn(target, project, env, argv, stdin),
    };
    lane.vars = (await scenario.setup?.(tools)) ?? {};
  } catch (error) {
    lane.setupFailure = `setup: ${error instanceof SetupError ? error.message : String(error)}`;
  }
  return lane;
}

/** The next call of a scenario in its prepared project. */
export function invocation(
  scenario: Scenario,
  lane: Lane,
  env: Record<string, string>,
): Invocation {
  const args = argsFor(scenario, lane.vars, lane.calls++);
  return {
    command: [...lane.target.prefix, ...args],
    cwd: lane.project!,
    env,
    stdin: typeof scenario.stdin === "function" ? scenario.stdin(lane.vars) : scenario.stdin,
  };
}

/** Runs one scenario against every target, interleaved; never throws for a target's failure. */
export async function runScenario(
  scenario: Scenario,
  targets: Target[],
  plan: Plan,
): Promise<ScenarioRow> {
  const lanes: Lane[] = [];
  for (const target of targets) lanes.push(await prepare(scenario, target, plan.env));
  const live = lanes.filter((lane) => !lane.setupFailure);
  for (let i = 0; i < plan.warmup; i++) {
    for (const lane of live) await timeOnce(invocation(scenario, lane, plan.env));
  }
  for (let i = 0; i < plan.runs; i++) {
    for (const lane of i % 2 ? [...live].reverse() : live) {
      const { out: _out, ...sample } = await timeOnce(invocation(scenario, lane, plan.env));
      lane.samples.push(sample);
    }
  }
  for (let i = 0; i < plan.rssRuns; i++) {
    for (const lane of live) {
      const kb = await peakRss(invocation(scenario, lane, plan.env));
      if (kb !== null) lane.rssKb = Math.max(lane.rssKb ?? 0, kb);
    }
  }
  for (const lane of lanes) if (lane.project) await removeProject(lane.project);
  const row: ScenarioRow = {
    name: scenario.name,
    command: scenario.command,
    shown: scenario.shown,
    results: lanes.map((lane) => ({
      target: lane.target.label,
      ...(lane.setupFailure ? failedStats(lane.setupFailure) : summarize(lane.samples, lane.rssKb)),
    })),
  };
  for (const result of row.results) {
    plan.log(
      `bench: ${scenario.name} [${result.target}] ${
        result.status === "failed" ? `failed (${result.failure})` : `median ${result.medianMs} ms`
      }`,
    );
  }
  return row;
}

export interface ReferenceRow extends Stats {
  shown: string;
}

/** Programs that do nothing, timed the same way, so the peaks numbers have a scale. */
export async function runReferences(plan: Plan, dir: string): Promise<ReferenceRow[]> {
  const empty = `${dir}/empty.ts`;
  await Deno.writeTextFile(empty, "");
  const references = [
    { shown: "node -e 0", command: ["node", "-e", "0"] },
    { shown: "deno run (empty file)", command: [Deno.execPath(), "run", "-q", empty] },
  ];
  const samples: Sample[][] = references.map(() => []);
  const rss: Array<number | null> = references.map(() => null);
  const call = (i: number): Invocation => ({
    command: references[i].command,
    cwd: dir,
    env: plan.env,
  });
  for (let w = 0; w < plan.warmup; w++) {
    for (let i = 0; i < references.length; i++) await runCommand(call(i).command, call(i));
  }
  for (let r = 0; r < plan.runs; r++) {
    for (let i = 0; i < references.length; i++) {
      const { out: _out, ...sample } = await timeOnce(call(i));
      samples[i].push(sample);
    }
  }
  for (let k = 0; k < plan.rssRuns; k++) {
    for (let i = 0; i < references.length; i++) {
      const kb = await peakRss(call(i));
      if (kb !== null) rss[i] = Math.max(rss[i] ?? 0, kb);
    }
  }
  return references.map((ref, i) => ({ shown: ref.shown, ...summarize(samples[i], rss[i]) }));
}
