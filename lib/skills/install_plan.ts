/**
 * Decides, file by file, what `skills install` does in one skills folder,
 * from three facts: the source file, the file on disk, and what the manifest
 * says peaks wrote. Nothing is written here.
 */
import type { Manifest } from "./manifest.ts";
import type { SkillsSource } from "./source.ts";
import { blockedParent, entryKind, hashFileAt, resolveRel, walkTree } from "./tree.ts";

export type FileAction =
  /** New file. */
  | "create"
  /** Peaks wrote it before and it was deleted: written again. */
  | "restore"
  /** Unchanged since peaks wrote it; the source has a new version. */
  | "update"
  | "unchanged"
  /** Already identical to the source though peaks did not record it: recorded. */
  | "adopt"
  /** Differs from what peaks wrote (edited by the user): kept. */
  | "user-modified"
  /** Edited by the user, replaced because of --force. */
  | "overwrite"
  /** No longer in the source and untouched since peaks wrote it: deleted. */
  | "remove"
  /** No longer in the source but edited by the user: kept. */
  | "keep-modified"
  /** A symlink or folder stands where a file should go: left alone. */
  | "blocked";

export interface FilePlan {
  path: string;
  action: FileAction;
}

export interface SkillConflict {
  skill: string;
  reason: string;
}

export interface InstallPlan {
  files: FilePlan[];
  conflicts: SkillConflict[];
  /** The manifest's `files` after the plan is carried out. */
  nextFiles: Record<string, string>;
  /** The manifest's `skills` after the plan is carried out. */
  nextSkills: string[];
  /** Same-named folders found to be exact copies, now recorded as peaks' own. */
  adoptedSkills: string[];
}

const WRITES: ReadonlySet<FileAction> = new Set(["create", "restore", "update", "overwrite"]);

export function writesFile(action: FileAction): boolean {
  return WRITES.has(action);
}

/** A same-named folder peaks did not install is taken over only when it is an exact copy. */
async function isExactCopy(root: string, source: SkillsSource, skill: string): Promise<boolean> {
  const walk = await walkTree(resolveRel(root, skill), skill);
  const wanted = source.skills.find((s) => s.name === skill)?.files ?? [];
  if (walk.refused.length || walk.files.length !== wanted.length) return false;
  for (const rel of wanted) {
    const found = await hashFileAt(resolveRel(root, rel));
    if (found.sha256 !== source.files.get(rel)?.sha256) return false;
  }
  return true;
}

export async function planInstall(
  root: string,
  source: SkillsSource,
  manifest: Manifest | undefined,
  force: boolean,
): Promise<InstallPlan> {
  // --force replaces edited files the source still ships; it never deletes an edited file.
  const recorded = manifest?.files ?? {};
  const ours = new Set(manifest?.skills ?? []);
  const files: FilePlan[] = [];
  const conflicts: SkillConflict[] = [];
  const nextFiles: Record<string, string> = {};
  const nextSkills = new Set<string>();
  const adoptedSkills: string[] = [];

  for (const skill of source.skills) {
    const kind = await entryKind(resolveRel(root, skill.name));
    if (kind === "symlink" || kind === "file" || kind === "other") {
      conflicts.push({ skill: skill.name, reason: `${skill.name} is a ${kind}, not a folder` });
      continue;
    }
    if (kind === "dir" && !ours.has(skill.name)) {
      if (!(await isExactCopy(root, source, skill.name))) {
        conflicts.push({
          skill: skill.name,
          reason: `a folder named ${skill.name} exists that peaks did not install`,
        });
        continue;
      }
      adoptedSkills.push(skill.name);
    }
    const blocked = await Promise.all(skill.files.map((rel) => blockedParent(root, rel)));
    const firstBlocked = blocked.find((b) => b !== undefined);
    if (firstBlocked) {
      conflicts.push({ skill: skill.name, reason: firstBlocked });
      continue;
    }
    nextSkills.add(skill.name);
    for (const rel of skill.files) {
      const wanted = source.files.get(rel)!.sha256;
      const before = recorded[rel];
      const found = await hashFileAt(resolveRel(root, rel));
      let action: FileAction;
      if (found.kind === "missing") action = before ? "restore" : "create";
      else if (found.kind !== "file") action = "blocked";
      else if (found.sha256 === wanted) action = before === wanted ? "unchanged" : "adopt";
      else if (before !== undefined && found.sha256 === before) action = "update";
      else action = force ? "overwrite" : "user-modified";
      files.push({ path: rel, action });
      if (action === "user-modified") {
        if (before) nextFiles[rel] = before;
      } else if (action !== "blocked") nextFiles[rel] = wanted;
    }
  }

  // Files peaks wrote that the source no longer has (an upgrade dropped them).
  for (const [rel, before] of Object.entries(recorded)) {
    if (source.files.has(rel)) continue;
    const skill = rel.split("/")[0];
    if (conflicts.some((c) => c.skill === skill)) continue;
    const found = await hashFileAt(resolveRel(root, rel));
    if (found.kind === "missing") continue;
    if (found.kind !== "file") {
      files.push({ path: rel, action: "blocked" });
      continue;
    }
    if (found.sha256 === before) files.push({ path: rel, action: "remove" });
    else {
      files.push({ path: rel, action: "keep-modified" });
      nextFiles[rel] = before;
      nextSkills.add(skill);
    }
  }
  return { files, conflicts, nextFiles, nextSkills: [...nextSkills].sort(), adoptedSkills };
}
