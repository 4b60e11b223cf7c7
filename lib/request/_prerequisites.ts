/**
 * What must exist on disk before a request may enter a state, per role and
 * request type (docs/requests.md has the same table for people). A heading
 * requirement is an exact line: `## Test Cases` does not satisfy `## Test cases`.
 */
import type { Layout } from "../core/project/paths.ts";
import type { Requirement } from "../core/request/requirements.ts";
import { REQUEST_TYPES, type RequestRole, type RequestType } from "../core/request/file.ts";

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

const designDraft: Rule = {
  types: ALL,
  file: (l, sid) => l.uiDesignDraft(sid),
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
    { types: BUILD, file: (l, sid) => l.rdTechDoc(sid) },
    {
      types: ["bugfix"],
      file: (l, sid, rid) => l.rdBugAnalysis(sid, rid),
      headings: ["## Root cause", "## Fix approach"],
    },
  ],
  "rd:qa-handoff": [{
    types: NOT_DOCS,
    file: (l, sid) => l.rdCodeReview(sid),
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
