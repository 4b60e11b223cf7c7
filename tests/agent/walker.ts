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
import { Orchestrator } from "./orchestrator.ts";
import { readSkill } from "./skill.ts";
import type { Scenario } from "./scenarios.ts";
import { expectedMilestones, SESSION } from "./catalog.ts";
import { type CallRecord, type Envelope, Walk, WalkFailure } from "./walk.ts";

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
  /** Bytes of skill text the orchestrator read: SKILL.md and the references it opened. */
  skillBytes: number;
  skillFiles: string[];
  /** Files the sub-agents read because their briefs named them. */
  briefReads: number;
  /** Slice levels Claude Code isolated in its own worktrees. */
  hostLevels: number;
  /** Each request's share of the calls (one for a single walk, three for the session). */
  requests: RequestSpan[];
}

async function commitSetup(root: string, message: string): Promise<void> {
  for (const args of [["add", "-A"], ["commit", "-q", "-m", message]]) {
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
  return await walkRequests(scenario.name, [scenario], options);
}

/**
 * Real use: the session's requests one after another in ONE project and ONE session (the user
 * commits each finished change when the workflow's end proposes it), one of them resumed by a new
 * conversation that knows nothing but what peaks prints.
 */
export async function walkSession(options: WalkOptions = {}): Promise<WalkReport> {
  return await walkRequests("session", SESSION, options);
}

async function walkRequests(
  name: string,
  scenarios: Scenario[],
  options: WalkOptions,
): Promise<WalkReport> {
  await using dir = await tempDir("peaks-walk-");
  const root = join(dir.path, "team-directory");
  const home = join(dir.path, "home");
  await Deno.mkdir(home);
  await copySampleProject(root);
  const setups = scenarios.filter((s) => s.setup);
  for (const s of setups) await s.setup!(root);
  if (setups.length) await commitSetup(root, "scenario setup");
  const walk = new Walk(root, home, scenarios.flatMap(expectedMilestones), options.mutate);
  const skill = await readSkill();
  const requests: RequestSpan[] = [];
  let sid: string | undefined;
  for (const scenario of scenarios) {
    walk.allowedWarnings = scenario.allowWarnings;
    const from = walk.calls.length;
    const skillFrom = walk.skillBytes;
    try {
      const orchestrator = new Orchestrator(walk, skill, scenario);
      // In a session of requests the user commits each finished change when its close asks.
      orchestrator.commitAtClose = scenarios.length > 1;
      orchestrator.sessionId = sid;
      if (!sid) await orchestrator.startup();
      sid = orchestrator.sessionId;
      if (await orchestrator.workflow() === "lost") {
        walk.conversation++;
        const resumed = new Orchestrator(walk, skill, scenario);
        resumed.commitAtClose = orchestrator.commitAtClose;
        await resumed.resume();
      }
    } catch (error) {
      // What was measured up to the failure, the failing request's share included.
      const span = { name: `${scenario.name} (failed)`, from, to: walk.calls.length };
      requests.push({ ...span, skillBytes: walk.skillBytes - skillFrom });
      if (error instanceof WalkFailure) error.partial = report(name, walk, requests);
      throw error;
    }
    requests.push({
      name: scenario.name,
      from,
      to: walk.calls.length,
      skillBytes: walk.skillBytes - skillFrom,
    });
  }
  await options.inspect?.(root, walk);
  return report(name, walk, requests);
}

export interface RequestSpan {
  name: string;
  /** Its calls: `calls.slice(from, to)`. */
  from: number;
  to: number;
  /** Skill text the orchestrator read during this request. */
  skillBytes: number;
}

function report(name: string, walk: Walk, requests: RequestSpan[]): WalkReport {
  return {
    scenario: name,
    calls: walk.calls,
    milestones: walk.milestones,
    skillBytes: walk.skillBytes,
    skillFiles: [...walk.skillFiles.keys()],
    briefReads: walk.briefReads.length,
    hostLevels: walk.hostLevels,
    requests,
  };
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
    `  skill text read: ${report.skillBytes} bytes (${
      report.skillFiles.join(", ")
    }); files named by briefs and read: ${report.briefReads}`,
    `  ${"phase".padEnd(8)}${pad("orch calls", 11)}${pad("orch bytes", 11)}${pad("sub calls", 10)}${
      pad("sub bytes", 10)
    }`,
  ];
  for (const r of report.requests.length > 1 ? report.requests : []) {
    const own = report.calls.slice(r.from, r.to).filter((c) => c.actor === "orchestrator");
    const bytes = own.reduce((n, c) => n + c.bytes, 0);
    lines.splice(
      lines.length - 1,
      0,
      `  request ${r.name}: ${own.length} orchestrator calls, ${bytes} bytes; skill text ${r.skillBytes} bytes`,
    );
  }
  for (const r of s.rows) {
    lines.push(
      `  ${r.phase.padEnd(8)}${pad(r.orchestratorCalls, 11)}${pad(r.orchestratorBytes, 11)}${
        pad(r.subAgentCalls, 10)
      }${pad(r.subAgentBytes, 10)}`,
    );
  }
  return lines.join("\n");
}
