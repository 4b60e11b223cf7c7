/**
 * The task of a workflow sub-agent, written by peaks when the orchestrator gives no prompt:
 * `sub-agent dispatch rd|qa|txt --request-id <rid>`. It names what to read (the request's
 * artefacts that exist, QA's report in a repair round) and what to deliver: the files the gate
 * after the sub-agent checks, with their exact lines, so the sub-agent produces what the next
 * transition needs instead of the orchestrator learning it from a refusal.
 */
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { exists } from "../infra/fs/files.ts";
import { readJsonFile } from "../infra/fs/json.ts";
import type { RequestDocument } from "../request/file.ts";
import { gateRequirements, retestHeading } from "../request/prerequisites.ts";
import { deliverBlock } from "../workflow/deliverables.ts";
import { peaksLine } from "../infra/shell.ts";
import { readWorkflow, type WorkflowState } from "../workflow/state.ts";
import { currentSliceRun } from "../workflow/slices.ts";

export const WORKFLOW_ROLES = ["rd", "qa", "txt"] as const;
export type WorkflowRole = (typeof WORKFLOW_ROLES)[number];

export function isWorkflowRole(role: string): role is WorkflowRole {
  return (WORKFLOW_ROLES as readonly string[]).includes(role);
}

interface TaskInput {
  project: Project;
  sessionId: string;
  /** Set when the session did not come from the workspace binding. */
  sessionWords: string[];
  rid: string;
}

function readList(paths: string[]): string {
  return paths.map((p) => `- ${p}`).join("\n");
}

async function existing(project: Project, paths: string[]): Promise<string[]> {
  const found = await Promise.all(paths.map(async (p) => (await exists(p)) ? p : null));
  return found.filter((p): p is string => p !== null).map((p) => displayPath(project.root, p));
}

/**
 * Whether UI's design draft is RD's to read: UI was in this request's swarm, or no swarm plan says
 * otherwise. The plan belongs to the swarm commands; only its member list is taken, defensively.
 */
async function uiInSwarm(project: Project, sid: string, rid: string): Promise<boolean> {
  const plan = await readJsonFile(project.layout.swarmPlan(sid, rid), { what: "swarm plan" })
    .catch(() => undefined) as { rid?: unknown; subAgents?: unknown } | undefined;
  if (!plan || plan.rid !== rid || !Array.isArray(plan.subAgents)) return true;
  return plan.subAgents.includes("ui");
}

/**
 * What RD reads of its request, absolute, the files that exist only: the PRD, the tech doc or bug
 * analysis, UI's design draft when UI was in the swarm, QA's test cases.
 */
export async function rdReads(project: Project, sid: string, rid: string): Promise<string[]> {
  const { layout } = project;
  const ui = await uiInSwarm(project, sid, rid);
  const paths = [
    layout.request(sid, "prd", rid),
    layout.rdTechDoc(sid, rid),
    layout.rdBugAnalysis(sid, rid),
    ...(ui ? [layout.uiDesignDraft(sid, rid)] : []),
    layout.qaTestCases(sid, rid),
  ];
  const found = await Promise.all(paths.map(async (p) => (await exists(p)) ? p : null));
  return found.filter((p): p is string => p !== null);
}

/** The task text; undefined when the request is not there to work from. */
export async function workflowTask(
  input: TaskInput,
  role: WorkflowRole,
): Promise<string | undefined> {
  const { project, sessionId, rid } = input;
  const state = await readWorkflow(project, sessionId, rid);
  const prd = state.requests.prd;
  if (!prd) return undefined;
  const peaks = (...words: string[]) => peaksLine(project.root, [...words, ...input.sessionWords]);
  const head = `Request ${rid} (type ${prd.meta.type}). The PRD: ${
    displayPath(project.root, project.layout.request(sessionId, "prd", rid))
  }.`;
  switch (role) {
    case "rd":
      return await rdTask(input, state, head);
    case "qa":
      return await qaTask(input, state.requests, head);
    case "txt":
      return await txtTask(input, prd, head, peaks);
  }
}

type Requests = Awaited<ReturnType<typeof readWorkflow>>["requests"];

async function rdTask(input: TaskInput, state: WorkflowState, head: string) {
  const { project, sessionId, rid } = input;
  const { requests } = state;
  const rd = requests.rd;
  const qa = requests.qa;
  if (!rd) return undefined;
  const slices = await currentSliceRun(project, sessionId, rid, state.records, rd.meta.updatedAt);
  const { layout } = project;
  const prdPath = layout.request(sessionId, "prd", rid);
  const read = (await rdReads(project, sessionId, rid)).filter((p) => p !== prdPath)
    .map((p) => displayPath(project.root, p));
  const rework = qa?.meta.state === "verdict-issued" && qa.meta.verdict === "return-to-rd";
  const gate = await gateRequirements(project, sessionId, rd.meta, "qa-handoff");
  const merged = slices?.complete
    ? `RD's implementation slices (${
      slices.nodes.join(", ")
    }) are merged into the project as uncommitted changes. You review the merged change as one: read all of it (\`git status --short --untracked-files=all\`, \`git diff\`: the files the slices added are intent-to-add, so it shows them; other new files show as ??), make the slices fit together where they do not, and run the project's tests.`
    : undefined;
  return [
    merged ? `${merged} ${head}` : `You implement it as RD. ${head}`,
    ...(read.length ? [`Read:\n${readList(read)}`] : []),
    ...(rework
      ? [
        `QA returned the work: fix every failure listed in ${
          displayPath(project.root, layout.qaTestReport(sessionId, rid))
        }, then review your diff again.`,
      ]
      : []),
    deliverBlock(project.root, "the hand-off to QA checks it", gate, [
      merged
        ? "- any fix, as an uncommitted working-tree diff"
        : "- the code change, as an uncommitted working-tree diff",
    ]),
  ].join("\n\n");
}

/** A re-test's brief says so: which run, what changed since the last, and how the report grows. */
function retestLead(project: Project, input: TaskInput, round: string, head: string): string {
  const { sessionId, rid } = input;
  const report = displayPath(project.root, project.layout.qaTestReport(sessionId, rid));
  const review = displayPath(project.root, project.layout.rdCodeReview(sessionId, rid));
  return [
    `You re-test it as QA: re-test ${round} (test run ${Number(round) + 1}). ${head}`,
    `What changed: your last run returned the work to RD with the failures listed in ${report}; RD repaired them since (its review of the repair: ${review}; the repair is in the diff). Run every case again, the ones that failed first.`,
    `Keep the earlier runs in ${report}: do not rewrite them. Add the section \`${
      retestHeading(round)
    }\` at its end: what changed, then each case's result in this run.`,
  ].join("\n");
}

async function qaTask(input: TaskInput, requests: Requests, head: string) {
  const { project, sessionId, rid } = input;
  const qa = requests.qa;
  if (!qa) return undefined;
  const round = qa.meta.state === "running" ? qa.meta.reworkRound : undefined;
  const read = await existing(project, [
    project.layout.qaTestCases(sessionId, rid),
    ...(round
      ? [project.layout.qaTestReport(sessionId, rid), project.layout.rdCodeReview(sessionId, rid)]
      : []),
  ]);
  const gate = await gateRequirements(project, sessionId, qa.meta, "verdict-issued");
  return [
    round ? retestLead(project, input, round, head) : `You test it as QA. ${head}`,
    `Read${
      read.length ? `:\n${readList(read)}\n` : " "
    }the change: \`git status --short --untracked-files=all\` and \`git diff\` (new files are listed with ??; read them too).`,
    ...(gate.length ? [deliverBlock(project.root, "the verdict checks it", gate)] : []),
    'Your verdict goes in your return JSON as "verdict": "pass" (every case passed), "return-to-rd" (a case failed because of the code; the report lists each failure) or "blocked" (you could not test).',
  ].join("\n\n");
}

async function txtTask(
  input: TaskInput,
  prd: RequestDocument,
  head: string,
  peaks: (...words: string[]) => string,
) {
  const { project, sessionId, rid } = input;
  const { layout } = project;
  const read = await existing(project, [
    layout.qaTestReport(sessionId, rid),
    layout.scImpact(sessionId, rid),
    layout.swarmPlan(sessionId, rid),
  ]);
  const gate = await gateRequirements(
    project,
    sessionId,
    { ...prd.meta, role: "txt" },
    "finalized",
  );
  const files = gate.filter((r) => !r.standards);
  const request = layout.request(sessionId, "txt", rid);
  return [
    `You write the handoff as TXT. ${head}`,
    `Read:\n${readList(read)}\nand \`${peaks("request", "list")}\`.`,
    `Create the TXT request with \`${
      peaks("request", "init", "--role", "txt", "--id", rid, "--apply")
    }\` and replace every placeholder in it.`,
    deliverBlock(project.root, "the finalize step checks it", [
      ...files,
      { path: request, headings: [], placeholderFree: true, standards: false },
    ]),
  ].join("\n\n");
}
