/**
 * What must exist on disk before a request may enter a state, per role and
 * request type (docs/requests.md has the same table for people). A heading
 * requirement is an exact line: `## Test Cases` does not satisfy `## Test cases`.
 */
import type { Layout } from "../core/paths.ts";
import { displayPath } from "../core/paths.ts";
import { isNotFound } from "../core/errors.ts";
import { REQUEST_TYPES, type RequestRole, type RequestType } from "../core/request_file.ts";
import { checkStandardsBlock } from "../core/standards_block.ts";
import { placeholdersOf } from "./lint.ts";

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

export type ProblemKind =
  | "missing"
  | "missing-heading"
  | "placeholders"
  | "standards-block-missing"
  | "standards-no-stack";

export interface Problem {
  kind: ProblemKind;
  /** Project-relative path of the file. */
  path: string;
  /** The exact lines the file must contain and does not (all of them when it is missing). */
  headings: string[];
  message: string;
}

export interface Requirement {
  path: string;
  headings: string[];
  placeholderFree: boolean;
  standards: boolean;
}

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

async function readIfFile(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (isNotFound(error) || error instanceof Deno.errors.IsADirectory) return undefined;
    throw error;
  }
}

const bare = (line: string) => line.replace(/^#+\s*/, "").trim().toLowerCase();
const quoted = (headings: string[]) => headings.map((h) => `"${h}"`).join(" and ");

function headingProblem(shown: string, lines: string[], headings: string[]): Problem | undefined {
  const absent = headings.filter((heading) => !lines.some((line) => line.trimEnd() === heading));
  if (!absent.length) return undefined;
  const hints = absent.flatMap((heading) => {
    const index = lines.findIndex((line) => /^#/.test(line) && bare(line) === bare(heading));
    return index === -1 ? [] : [
      ` Line ${index + 1} has ${JSON.stringify(lines[index].trimEnd())}: use "${heading}" exactly.`,
    ];
  });
  return {
    kind: "missing-heading",
    path: shown,
    headings: absent,
    message: `${shown} must contain the line${absent.length > 1 ? "s" : ""} ${quoted(absent)}.${
      hints.join("")
    }`,
  };
}

function standardsProblem(shown: string, text: string | undefined): Problem | undefined {
  const hint = 'Gate G needs its peaks managed block to name the stack under "## Stack"';
  const problem = (kind: ProblemKind, what: string): Problem => ({
    kind,
    path: shown,
    headings: ["## Stack"],
    message: `${shown} ${what}: ${hint}.`,
  });
  if (text === undefined) return problem("missing", "is missing");
  const check = checkStandardsBlock(text);
  if (!check.present) return problem("standards-block-missing", "has no peaks managed block");
  if (!check.namesStack) {
    return problem("standards-no-stack", "has a peaks managed block that names no stack");
  }
  return undefined;
}

/** Checks every requirement; returns one problem per missing file, heading or gate. */
export async function checkRequirements(
  root: string,
  requirements: Requirement[],
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const requirement of requirements) {
    const shown = displayPath(root, requirement.path);
    const text = await readIfFile(requirement.path);
    if (requirement.standards) {
      const problem = standardsProblem(shown, text);
      if (problem) problems.push(problem);
      continue;
    }
    if (text === undefined) {
      const needs = requirement.headings.length
        ? ` It must contain the line${requirement.headings.length > 1 ? "s" : ""} ${
          quoted(requirement.headings)
        }.`
        : "";
      problems.push({
        kind: "missing",
        path: shown,
        headings: requirement.headings,
        message: `${shown} is missing.${needs}`,
      });
      continue;
    }
    const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
    const problem = headingProblem(shown, lines, requirement.headings);
    if (problem) problems.push(problem);
    if (requirement.placeholderFree) {
      const found = placeholdersOf(text);
      if (found.length) {
        problems.push({
          kind: "placeholders",
          path: shown,
          headings: [],
          message: `${shown} still has ${found.length} placeholder(s), first on line ${
            found[0].line
          } (${found[0].token}).`,
        });
      }
    }
  }
  return problems;
}
