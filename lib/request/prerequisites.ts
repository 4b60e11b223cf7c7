/**
 * What must exist on disk before a request may enter a state, per role and
 * request type (docs/requests.md has the same table for people). A heading
 * requirement is an exact line: `## Test Cases` does not satisfy `## Test cases`.
 */
import type { Layout } from "../workspace/paths.ts";
import type { Requirement } from "./requirements.ts";
import type { Project } from "../workspace/project.ts";
import { checkRdWork, type RdWork } from "./rd_work.ts";
import {
  readRequest,
  REQUEST_TYPES,
  type RequestMeta,
  type RequestRole,
  type RequestType,
} from "./file.ts";

interface Rule {
  types: readonly RequestType[];
  file: (layout: Layout, sid: string, rid: string) => string;
  headings?: string[];
  placeholderFree?: boolean;
  /** Gate G: the file's peaks managed block names the stack. */
  standards?: boolean;
}

const ALL = REQUEST_TYPES;
const BUILD = ["feature", "refactor"] as const;
const PLANNED = ["feature", "bugfix", "refactor"] as const;
const NOT_DOCS = ["feature", "bugfix", "refactor", "config", "chore"] as const;

/** The sections RD planning's tech doc holds (peaks-rd: scope, files, approach, risks, verification). */
export const TECH_DOC_HEADINGS = [
  "## Scope",
  "## In-scope files",
  "## Approach",
  "## Risks",
  "## Verification",
];
/** The sections of a bugfix's bug analysis. */
export const BUG_ANALYSIS_HEADINGS = ["## Root cause", "## Fix approach"];

const designDraft: Rule = {
  types: ALL,
  file: (l, sid, rid) => l.uiDesignDraft(sid, rid),
  placeholderFree: true,
};

export const PREREQUISITES: Record<string, Rule[]> = {
  "prd:confirmed-by-user": [{
    types: ALL,
    file: (l, sid, rid) => l.request(sid, "prd", rid),
    headings: ["## Goals", "## Acceptance criteria"],
  }],
  "ui:direction-locked": [designDraft],
  "ui:handed-off": [designDraft],
  "rd:spec-locked": [
    { types: BUILD, file: (l, sid, rid) => l.rdTechDoc(sid, rid), headings: TECH_DOC_HEADINGS },
    {
      types: ["bugfix"],
      file: (l, sid, rid) => l.rdBugAnalysis(sid, rid),
      headings: BUG_ANALYSIS_HEADINGS,
    },
  ],
  "rd:qa-handoff": [{
    types: NOT_DOCS,
    file: (l, sid, rid) => l.rdCodeReview(sid, rid),
    headings: ["## Findings"],
  }],
  "qa:running": [{
    types: PLANNED,
    file: (l, sid, rid) => l.qaTestCases(sid, rid),
    headings: ["## Test cases"],
  }],
  "qa:verdict-issued": [{
    types: NOT_DOCS,
    file: (l, sid, rid) => l.qaTestReport(sid, rid),
    headings: ["## Test execution"],
  }],
  "sc:impact-recorded": [{ types: ALL, file: (l, sid, rid) => l.scImpact(sid, rid) }],
  "txt:finalized": [
    { types: ALL, file: (l, sid, rid) => l.txtHandoff(sid, rid) },
    { types: ALL, file: (l) => l.claudeMd, standards: true },
  ],
};

/** The files a request of `type` needs before entering `role:to`. */
export function requirementsFor(
  layout: Layout,
  sid: string,
  role: RequestRole,
  type: RequestType,
  rid: string,
  to: string,
): Requirement[] {
  return (PREREQUISITES[`${role}:${to}`] ?? [])
    .filter((rule) => rule.types.includes(type))
    .map((rule) => ({
      path: rule.file(layout, sid, rid),
      headings: rule.headings ?? [],
      placeholderFree: rule.placeholderFree ?? false,
      standards: rule.standards ?? false,
    }));
}

/**
 * The files a transition's gate checks, including what depends on the workflow's state: in the
 * RD-QA repair loop, RD's hand-off to QA needs a code review written after QA returned the work,
 * so a review left over from the previous round does not pass.
 */
export async function gateRequirements(
  project: Project,
  sid: string,
  meta: Pick<RequestMeta, "role" | "type" | "rid">,
  to: string,
): Promise<Requirement[]> {
  const requirements = requirementsFor(project.layout, sid, meta.role, meta.type, meta.rid, to);
  if (meta.role === "qa" && to === "verdict-issued") {
    return await retest(project, sid, meta, requirements);
  }
  if (meta.role !== "rd" || to !== "qa-handoff" || requirements.length === 0) return requirements;
  const newerThan = await reworkSince(project, sid, meta.rid);
  return newerThan ? requirements.map((r) => ({ ...r, newerThan })) : requirements;
}

/** In the RD-QA repair loop: QA's return-to-rd verdict, which RD's new round comes after. */
async function reworkSince(project: Project, sid: string, rid: string) {
  const qa = await readRequest(project, sid, "qa", rid).catch(() => undefined);
  if (qa?.meta.state !== "verdict-issued" || qa.meta.verdict !== "return-to-rd") return undefined;
  return { at: qa.meta.updatedAt, event: "QA's return-to-rd verdict" };
}

/**
 * RD's own work that its hand-off to QA needs besides the files (rd_work.ts): undefined for
 * every other transition. In a repair round only the RD sub-agents sent after QA's verdict count.
 */
export async function gateRdWork(
  project: Project,
  sid: string,
  meta: Pick<RequestMeta, "role" | "rid">,
  to: string,
): Promise<RdWork | undefined> {
  if (meta.role !== "rd" || to !== "qa-handoff") return undefined;
  return await checkRdWork(project, sid, meta.rid, await reworkSince(project, sid, meta.rid));
}

/**
 * A QA re-test keeps the earlier runs in its report and adds its own section, `## Re-test <n>`,
 * written after the re-test began: the report of an earlier run does not pass for this one.
 */
async function retest(
  project: Project,
  sid: string,
  meta: Pick<RequestMeta, "rid">,
  requirements: Requirement[],
): Promise<Requirement[]> {
  const qa = await readRequest(project, sid, "qa", meta.rid).catch(() => undefined);
  const round = qa?.meta.reworkRound;
  if (!qa || !round || qa.meta.state !== "running") return requirements;
  const event = `the start of QA's re-test ${round}`;
  return requirements.map((r) => ({
    ...r,
    headings: [...r.headings, retestHeading(round)],
    newerThan: { at: qa.meta.updatedAt, event },
  }));
}

/** The section a QA re-test adds to its report. */
export function retestHeading(round: string | number): string {
  return `## Re-test ${round}`;
}
