/**
 * Checks that files a gate needs exist and say what they must: exact heading
 * lines, no template placeholders, not empty, and for CLAUDE.md a peaks
 * standards block that names the stack. The request prerequisites and the
 * swarm's Gate B describe their files as requirements and call this.
 */
import { displayPath } from "../workspace/paths.ts";
import { FileRefused, readBoundedText } from "../infra/fs/files.ts";
import { checkStandardsBlock } from "../standards/block.ts";
import { placeholdersOf } from "./linter.ts";

export type ProblemKind =
  | "missing"
  | "missing-heading"
  | "placeholders"
  | "standards-block-missing"
  | "standards-no-stack"
  | "empty"
  | "stale";

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
  /** The file must hold more than whitespace. */
  nonEmpty?: boolean;
  /** The file must have been written after this moment (e.g. a review redone for a rework round). */
  newerThan?: { at: string; event: string };
}

async function readIfFile(path: string): Promise<string | undefined> {
  try {
    return await readBoundedText(path, { follow: true });
  } catch (error) {
    // A folder, a FIFO or a device in place of a required file counts as missing.
    if (error instanceof FileRefused || error instanceof Deno.errors.IsADirectory) return undefined;
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

/** A file that must be newer than an event and was last written before it. */
function staleProblem(requirement: Requirement, shown: string): Problem | undefined {
  const { at, event } = requirement.newerThan!;
  const written = Deno.statSync(requirement.path).mtime?.getTime();
  if (written === undefined || written > Date.parse(at)) return undefined;
  return {
    kind: "stale",
    path: shown,
    headings: requirement.headings,
    message: `${shown} was written before ${event} (${at}): write it again for this round.`,
  };
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
    if (requirement.nonEmpty && text.trim() === "") {
      problems.push({
        kind: "empty",
        path: shown,
        headings: requirement.headings,
        message: `${shown} is empty.`,
      });
      continue;
    }
    const stale = requirement.newerThan && staleProblem(requirement, shown);
    if (stale) problems.push(stale);
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
