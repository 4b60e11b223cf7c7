/**
 * The bundled skills tree peaks installs: what it holds, read and checked.
 * Where it comes from is locate.ts.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { gateError, PeaksError } from "../infra/errors.ts";
import { join } from "../infra/std.ts";
import { checkSkillFile, SKILL_NAME_PATTERN, type SkillIssue } from "./_frontmatter.ts";
import { isSafeRelPath, resolveRel, sha256Hex, walkTree } from "./tree.ts";
import { locateSkillsSource, runtimeProbe, type SourceKind, type SourceProbe } from "./locate.ts";

export { locateSkillsSource, runtimeProbe };
export type { SourceKind, SourceProbe };

/** Bounds that keep a broken or hostile tree from exhausting memory. */
export const MAX_SOURCE_FILES = 2000;
export const MAX_SOURCE_FILE_BYTES = 4 * 1024 * 1024;

export interface SourceFile {
  bytes: Uint8Array;
  sha256: string;
  /** Permission bits to keep (scripts stay executable); absent where the OS has none. */
  mode?: number;
}

export interface SourceSkill {
  name: string;
  description: string;
  /** Files of this skill, relative to the tree: `peaks-code/SKILL.md`. */
  files: string[];
}

export interface SkillsSource {
  kind: SourceKind;
  path: string;
  skills: SourceSkill[];
  /** Every file to install, keyed by its path relative to the tree. */
  files: Map<string, SourceFile>;
  /** Top-level files that are not skills (README.md, LICENSE): not installed. */
  ignored: string[];
}

function invalid(path: string, issues: SkillIssue[]): PeaksError {
  const shown = issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`).join("; ");
  return gateError(
    "SKILLS_SOURCE_INVALID",
    `The skills tree at ${path} has ${issues.length} problem(s): ${shown}${
      issues.length > 5 ? "; ..." : ""
    }. Fix the tree; nothing was installed.`,
    { data: { source: path, issues } },
  );
}

/** Reads and checks the whole tree; refuses an empty or invalid one. */
export async function readSkillsSource(
  ctx: Ctx,
  probe: SourceProbe = runtimeProbe(),
): Promise<SkillsSource> {
  const { kind, path } = await locateSkillsSource(ctx, probe);
  const issues: SkillIssue[] = [];
  const ignored: string[] = [];
  const skillDirs: string[] = [];
  const top: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(path)) top.push(entry);
  top.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const entry of top) {
    if (entry.name.startsWith(".")) continue;
    if (entry.isSymlink) {
      issues.push({ path: entry.name, message: "is a symlink; skills must be real folders" });
    } else if (entry.isDirectory) skillDirs.push(entry.name);
    else ignored.push(entry.name);
  }
  if (skillDirs.length === 0 && issues.length === 0) {
    throw new PeaksError(
      "SKILLS_SOURCE_EMPTY",
      `The skills tree at ${path} (${kind}) holds no skills: expected one folder per skill, each with a SKILL.md. Set PEAKS_SKILLS_DIR to a complete tree.`,
      { data: { source: kind, path } },
    );
  }

  const skills: SourceSkill[] = [];
  const files = new Map<string, SourceFile>();
  for (const name of skillDirs) {
    if (!SKILL_NAME_PATTERN.test(name) || name.length > 64) {
      issues.push({ path: name, message: "is not a valid skill folder name ([a-z0-9-], 1-64)" });
      continue;
    }
    const walk = await walkTree(join(path, name), name);
    for (const rel of walk.refused) {
      issues.push({
        path: rel,
        message: "is a symlink or special file; only regular files are installed",
      });
    }
    if (!walk.files.includes(`${name}/SKILL.md`)) {
      issues.push({ path: name, message: "has no SKILL.md" });
      continue;
    }
    await readSkillFiles(path, walk.files, files, issues);
    const skillText = new TextDecoder().decode(files.get(`${name}/SKILL.md`)?.bytes);
    const checked = checkSkillFile(name, skillText);
    issues.push(...checked.issues);
    skills.push({
      name,
      description: checked.frontmatter?.description ?? "",
      files: walk.files.filter((rel) => files.has(rel)),
    });
  }
  if (issues.length) throw invalid(path, issues);
  return { kind, path, skills, files, ignored };
}

/** Reads each file of one skill into `files`; a name or size peaks cannot install is an issue. */
async function readSkillFiles(
  path: string,
  rels: string[],
  files: Map<string, SourceFile>,
  issues: SkillIssue[],
): Promise<void> {
  for (const rel of rels) {
    if (!isSafeRelPath(rel)) {
      issues.push({ path: rel, message: "has a name peaks cannot install safely" });
      continue;
    }
    if (files.size >= MAX_SOURCE_FILES) {
      throw invalid(path, [{
        path: rel,
        message: `the tree has more than ${MAX_SOURCE_FILES} files`,
      }]);
    }
    const full = resolveRel(path, rel);
    const info = await Deno.stat(full);
    const size = info.size;
    if (size > MAX_SOURCE_FILE_BYTES) {
      issues.push({
        path: rel,
        message: `is ${size} bytes; the limit is ${MAX_SOURCE_FILE_BYTES}`,
      });
      continue;
    }
    const bytes = await Deno.readFile(full);
    const mode = info.mode === null ? undefined : info.mode & 0o777;
    files.set(rel, { bytes, sha256: await sha256Hex(bytes), ...(mode ? { mode } : {}) });
  }
}
