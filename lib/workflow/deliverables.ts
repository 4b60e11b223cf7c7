/**
 * How a sub-agent's task names what it must deliver: one line per file, with the exact lines the
 * gate after it looks for. Written from the same requirements the gates check, so a sub-agent
 * that delivers what its task lists passes the next gate.
 *
 *     - .peaks/_runtime/<sid>/rd/code-review-<rid>.md (with the line "## Findings")
 *     - .peaks/_runtime/<sid>/ui/design-draft-<rid>.md (no <placeholder> left)
 */
import { displayPath } from "../workspace/paths.ts";
import type { Requirement } from "../request/requirements.ts";

export function deliverable(root: string, requirement: Requirement): string {
  const shown = displayPath(root, requirement.path);
  const notes = [
    ...(requirement.headings.length
      ? [
        `with the line${requirement.headings.length > 1 ? "s" : ""} ${
          requirement.headings.map((h) => `"${h}"`).join(" and ")
        }`,
      ]
      : []),
    ...(requirement.placeholderFree ? ["no <placeholder> left"] : []),
  ];
  return `- ${shown}${notes.length ? ` (${notes.join("; ")})` : ""}`;
}

/** The `Deliver` paragraph of a task. */
export function deliverBlock(
  root: string,
  why: string,
  requirements: Requirement[],
  extra: string[] = [],
): string {
  return `Deliver (${why}):\n${
    [...requirements.map((r) => deliverable(root, r)), ...extra].join("\n")
  }`;
}
