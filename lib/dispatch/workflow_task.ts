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
import type { RequestDocument } from "../request/file.ts";
import { gateRequirements } from "../request/prerequisites.ts";
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
  const head = `Request ${rid} (type ${prd.meta.type}). The PRD: \`${
    peaks("request", "show", rid, "--role", "prd")
  }\`.`;
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
  const read = await existing(project, [
    layout.rdTechDoc(sessionId, rid),
    layout.rdBugAnalysis(sessionId, rid),
    layout.uiDesignDraft(sessionId, rid),
    layout.qaTestCases(sessionId, rid),
  ]);
  const rework = qa?.meta.state === "verdict-issued" && qa.meta.verdict === "return-to-rd";
  const gate = await gateRequirements(project, sessionId, rd.meta, "qa-handoff");
  const merged = slices?.complete
    ? `RD's implementation slices (${
      slices.nodes.join(", ")
    }) are merged into the project as uncommitted changes. You review the merged change as one: read all of it (\`git status --short --untracked-files=all\`, \`git diff\`; new files show as ??), make the slices fit together where they do not, and run the project's tests.`
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

async function qaTask(input: TaskInput, requests: Requests, head: string) {
  const { project, sessionId, rid } = input;
  const qa = requests.qa;
  if (!qa) return undefined;
  const read = await existing(project, [project.layout.qaTestCases(sessionId, rid)]);
  const gate = await gateRequirements(project, sessionId, qa.meta, "verdict-issued");
  return [
    `You test it as QA. ${head}`,
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
