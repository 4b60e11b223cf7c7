/**
 * The literal-agent walker: one request through the whole workflow on a fresh copy of the demo's
 * sample project, with real peaks processes, an orchestrator that follows the peaks-code skill and
 * the envelopes' first nextAction, and sub-agents that follow their briefs. It ends at
 * `txt finalized` or fails on the first failed call, call that changed nothing, step out of the
 * workflow's order, or gate the orchestrator could only pass by writing a role's artefact.
 */
import { join } from "../../lib/infra/std.ts";
import { copySampleProject } from "../../demo/sample.ts";
import { tempDir } from "../support/temp.ts";
import { Orchestrator, readSkill } from "./orchestrator.ts";
import { expectedMilestones, type Scenario } from "./scenarios.ts";
import { type CallRecord, type Envelope, Walk } from "./walk.ts";

export interface WalkOptions {
  /**
   * Test hook: sees (and may change) every envelope before the players read it, e.g. to reorder
   * a nextAction and prove the walk then fails.
   */
  mutate?: (command: string, envelope: Envelope) => void;
  /** Sees the project before it is removed (assertions on files). */
  inspect?: (root: string, walk: Walk) => Promise<void>;
}

export interface WalkReport {
  scenario: string;
  calls: CallRecord[];
  milestones: string[];
}

async function commitSetup(root: string): Promise<void> {
  for (const args of [["add", "-A"], ["commit", "-q", "-m", "scenario setup"]]) {
    const out = await new Deno.Command("git", {
      args: ["-c", "user.name=walker", "-c", "user.email=walker@peaks.invalid", ...args],
      cwd: root,
      stdout: "null",
      stderr: "null",
    }).output();
    if (!out.success) throw new Error(`git ${args.join(" ")} failed`);
  }
}

export async function walkScenario(
  scenario: Scenario,
  options: WalkOptions = {},
): Promise<WalkReport> {
  await using dir = await tempDir("peaks-walk-");
  const root = join(dir.path, "team-directory");
  const home = join(dir.path, "home");
  await Deno.mkdir(home);
  await copySampleProject(root);
  if (scenario.setup) {
    await scenario.setup(root);
    await commitSetup(root);
  }
  const walk = new Walk(root, home, expectedMilestones(scenario), options.mutate);
  const orchestrator = new Orchestrator(walk, await readSkill(), scenario);
  await orchestrator.startup();
  await orchestrator.workflow();
  await options.inspect?.(root, walk);
  return { scenario: scenario.name, calls: walk.calls, milestones: walk.milestones };
}

const PHASES = ["startup", "prd", "swarm", "rd", "qa", "sc", "txt"];

/** Calls and bytes per phase, orchestrator and sub-agents apart (git counted on its own). */
export function summarize(report: WalkReport) {
  const rows = PHASES.map((phase) => {
    const of = (actor: string) =>
      report.calls.filter((c) => c.phase === phase && c.actor === actor);
    const sum = (calls: CallRecord[]) => calls.reduce((n, c) => n + c.bytes, 0);
    return {
      phase,
      orchestratorCalls: of("orchestrator").length,
      orchestratorBytes: sum(of("orchestrator")),
      subAgentCalls: of("sub-agent").length,
      subAgentBytes: sum(of("sub-agent")),
      gitBytes: sum(of("git")),
    };
  });
  const total = (key: keyof (typeof rows)[number]) =>
    rows.reduce((n, r) => n + (typeof r[key] === "number" ? r[key] as number : 0), 0);
  return {
    rows,
    orchestratorCalls: total("orchestratorCalls"),
    orchestratorBytes: total("orchestratorBytes"),
    subAgentCalls: total("subAgentCalls"),
    subAgentBytes: total("subAgentBytes"),
    gitBytes: total("gitBytes"),
  };
}

export function formatSummary(report: WalkReport): string {
  const s = summarize(report);
  const pad = (v: string | number, n: number) => String(v).padStart(n);
  const lines = [
    `${report.scenario}: ${s.orchestratorCalls} orchestrator calls, ${s.orchestratorBytes} bytes; ${s.subAgentCalls} sub-agent calls, ${s.subAgentBytes} bytes; git ${s.gitBytes} bytes`,
    `  ${"phase".padEnd(8)}${pad("orch calls", 11)}${pad("orch bytes", 11)}${pad("sub calls", 10)}${
      pad("sub bytes", 10)
    }`,
  ];
  for (const r of s.rows) {
    lines.push(
      `  ${r.phase.padEnd(8)}${pad(r.orchestratorCalls, 11)}${pad(r.orchestratorBytes, 11)}${
        pad(r.subAgentCalls, 10)
      }${pad(r.subAgentBytes, 10)}`,
    );
  }
  return lines.join("\n");
}
