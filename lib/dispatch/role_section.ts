/**
 * The part of a role skill a dispatched sub-agent works from. A sub-agent may not activate
 * skills and may not know where they are installed, so its brief carries the one section of its
 * role's SKILL.md that is written for it: the `##` heading ending in `(<role>)` of
 * `peaks-<family>/SKILL.md` (`rd-planning` → peaks-rd, "Planning (rd-planning)"). Roles without
 * such a section (reviewers, custom roles) get none; their task says what to do.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { isNotFound, PeaksError } from "../infra/errors.ts";
import { join } from "../infra/std.ts";
import { FileRefused, readBoundedText } from "../infra/fs/files.ts";
// locate.ts alone (not the tree checks of source.ts): it needs nothing a dispatch has not loaded.
import { locateSkillsSource } from "../skills/locate.ts";

export interface RoleSection {
  /** The skill folder name: `peaks-rd`. */
  skill: string;
  /** The section's heading text: `Implementation (rd)`. */
  heading: string;
  body: string;
}

/** Cuts the `##` section whose heading ends in `(<role>)` out of a SKILL.md. */
export function sectionFor(markdown: string, role: string): Omit<RoleSection, "skill"> | null {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) =>
    /^## /.test(line) && line.trimEnd().endsWith(`(${role})`)
  );
  if (start === -1) return null;
  let end = lines.findIndex((line, i) => i > start && /^## /.test(line));
  if (end === -1) end = lines.length;
  return {
    heading: lines[start].slice(3).trim(),
    body: lines.slice(start + 1, end).join("\n").trim(),
  };
}

const SKILL_FILE_MAX = 256 * 1024;

/**
 * An isolated slice takes the section written for it, `(<role> slice)`, when the skill has one:
 * its own steps, not the whole role's with exceptions. Otherwise the role's section.
 */
export async function readRoleSection(
  ctx: Ctx,
  role: string,
  options: { slice?: boolean } = {},
): Promise<RoleSection | null> {
  const family = role.split("-")[0].toLowerCase();
  if (!/^[a-z]+$/.test(family)) return null;
  const skill = `peaks-${family}`;
  try {
    const source = await locateSkillsSource(ctx);
    const path = join(source.path, skill, "SKILL.md");
    const text = await readBoundedText(path, { maxBytes: SKILL_FILE_MAX, follow: true });
    const section = text === undefined
      ? null
      : (options.slice ? sectionFor(text, `${role} slice`) : null) ?? sectionFor(text, role);
    return section ? { skill, ...section } : null;
  } catch (error) {
    // No skills tree, no such skill, not a readable file: the brief goes without the section.
    if (error instanceof PeaksError || error instanceof FileRefused || isNotFound(error)) {
      return null;
    }
    throw error;
  }
}
