/**
 * What every upgrade step shares: the report shape, the dry-run switch and
 * backups. A backup keeps the file's project-relative path under
 * .peaks/upgrade/backups/<stamp>/, so restoring is a copy back.
 */
import { join } from "../infra/std.ts";
import {
  JSON_WRITE_MAX_BYTES,
  movePath,
  readBoundedFile,
  writeFileAtomic,
} from "../infra/fs/files.ts";
import type { Project } from "../workspace/project.ts";
import { displayPath } from "../workspace/paths.ts";
import { assertWritable } from "../workspace/writable.ts";

export type StepStatus = "changed" | "unchanged" | "planned" | "skipped";

export interface StepReport {
  step: string;
  status: StepStatus;
  details: string[];
}

export interface Migration {
  project: Project;
  now: Date;
  dryRun: boolean;
  /** Absolute backup folder for this run (created only when something is backed up). */
  backupDir: string;
  /** Project-relative paths backed up (or that would be, in a dry run). */
  backups: string[];
}

export function rel(m: Migration, path: string): string {
  return displayPath(m.project.root, path);
}

export function backupPathFor(m: Migration, path: string): string {
  return join(m.backupDir, ...rel(m, path).split("/"));
}

/** Copies a file into the backup folder (dry run: only records it). */
export async function backupFile(m: Migration, path: string): Promise<string> {
  const target = backupPathFor(m, path);
  m.backups.push(rel(m, path));
  if (!m.dryRun) {
    await assertWritable(m.project, target, "an upgrade backup");
    // Bounded, and a state file only as a regular file: no link inside .peaks is followed.
    const bytes = await readBoundedFile(path, { maxBytes: JSON_WRITE_MAX_BYTES, follow: true });
    if (bytes !== undefined) await writeFileAtomic(target, bytes);
  }
  return rel(m, target);
}

/** Moves a file or folder into the backup folder (dry run: only records it). */
export async function moveToBackup(m: Migration, path: string): Promise<string> {
  const target = backupPathFor(m, path);
  m.backups.push(rel(m, path));
  if (!m.dryRun) {
    await assertWritable(m.project, target, "an upgrade backup");
    await movePath(path, target);
  }
  return rel(m, target);
}

export function step(name: string, m: Migration, details: string[]): StepReport {
  if (!details.length) return { step: name, status: "unchanged", details: [] };
  return { step: name, status: m.dryRun ? "planned" : "changed", details };
}
