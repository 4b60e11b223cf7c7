/**
 * What the orchestrator takes from the peaks-code skill: the command lines of its sections and
 * decision rows, and the text of each file it opens (the walk counts those bytes).
 */
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";
import { WalkFailure } from "./walk.ts";

/** The `sh` lines of a skill section (from its heading to the next heading of the same level). */
export function sectionCommands(markdown: string, heading: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start === -1) throw new WalkFailure(`the skill has no section "${heading}"`);
  const level = heading.split(" ")[0];
  const out: string[] = [];
  let fenced = false;
  for (const raw of lines.slice(start + 1)) {
    if (!fenced && new RegExp(`^${level} `).test(raw)) break;
    if (/^\s*```/.test(raw)) {
      fenced = !fenced;
      continue;
    }
    if (fenced && raw.trim()) out.push(raw.trim());
  }
  return out;
}

export interface SkillSteps {
  startup: string[];
  /** The two commands that start the workflow: create the PRD, lint it. */
  start: string[];
  /** The review and finalize of a returned sub-agent. */
  review: string[];
  header: string;
  /** The decision point before RD's dispatch: the check for implementation slices. */
  slicesCheck: string;
  /** The review and finalize of a returned slice, in its worktree (references/slices.md). */
  sliceReview: string[];
  /** The text of each skill file, by its path under skills/peaks-code (what opening it costs). */
  files: Record<string, string>;
  /** The first command of "Resuming a session": the request's next step from peaks alone. */
  resume: string;
  /** The decision table's row for a `blocked` return with `login-required`, when the skill has one. */
  loginRow?: string;
}

/** The command in backticks of the decision-point row that starts with `moment`. */
function decisionCommand(markdown: string, moment: string): string {
  const row = markdown.split("\n").find((l) => l.startsWith(`| ${moment}`));
  const command = row && /`(peaks [^`]+)`/.exec(row.slice(row.indexOf("|", 2)))?.[1];
  if (!command) throw new WalkFailure(`the skill's decision points have no row "${moment}"`);
  return command;
}

export async function readSkill(): Promise<SkillSteps> {
  const skill = join(REPO, "skills", "peaks-code");
  const text = await Deno.readTextFile(join(skill, "SKILL.md"));
  const slices = await Deno.readTextFile(join(skill, "references", "slices.md"));
  return {
    startup: sectionCommands(text, "## Startup (in order, one command each)"),
    start: sectionCommands(text, "## The workflow").slice(0, 2),
    review: sectionCommands(text, "### After each sub-agent returns"),
    header: sectionCommands(text, "## Rules that hold at every step")[0],
    slicesCheck: decisionCommand(text, "the nextAction is `swarm slices --rid <rid>`"),
    sliceReview: sectionCommands(slices, "## 2. Finalize every slice"),
    // `session start` is in the startup already; the section's show call is the step.
    resume: sectionCommands(text, "## Resuming a session").find((c) => / request show /.test(c)) ??
      "",
    files: { "SKILL.md": text, "references/slices.md": slices },
    loginRow: text.split("\n").find((l) => /^\| a `blocked` return with `login-required`/.test(l)),
  };
}
