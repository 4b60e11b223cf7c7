/**
 * `upgrade --to 2.0 --auto`: moves a 1.x workspace to the 2.0 layout in
 * steps that each report what they did, back up what they change, and do
 * nothing when already done (so a second run changes nothing).
 */
import { isoTime, isValidId } from "../infra/ids.ts";
import { fileTimestamp } from "../infra/ids.ts";
import type { Project } from "../workspace/project.ts";
import { withLock } from "../infra/fs/lock.ts";
import { ensureGitignore, ensureWorkspaceDirs, withGitignoreBlock } from "../workspace/skeleton.ts";
import { LEGACY_SESSION_DIR, type Signal } from "./detect.ts";
import { migrateStandards } from "./standards.ts";
import { preferencesStep } from "./preferences.ts";
import { requestArtefactsStep } from "./request_artefacts.ts";
import { type Migration, moveToBackup, rel, step, type StepReport } from "./steps.ts";
import { assertWritable } from "../workspace/writable.ts";
import { createFileExclusive, exists, movePath, readIfPresent } from "../infra/fs/files.ts";

async function workspaceStep(m: Migration): Promise<StepReport> {
  const { runtime, subAgents } = m.project.layout;
  const missing = [];
  for (const dir of [runtime, subAgents]) if (!(await exists(dir))) missing.push(dir);
  if (!m.dryRun && missing.length) await ensureWorkspaceDirs(m.project);
  return step("workspace", m, missing.map((d) => `created ${rel(m, d)}/`));
}

async function gitignoreStep(m: Migration): Promise<StepReport> {
  const path = m.project.layout.gitignore;
  const current = await readIfPresent(path);
  if (withGitignoreBlock(current) === current) return step("gitignore", m, []);
  if (!m.dryRun) {
    await assertWritable(m.project, path, "the workspace .gitignore");
    await ensureGitignore(m.project);
  }
  return step("gitignore", m, [
    `${current === undefined ? "created" : "updated"} the managed block in ${rel(m, path)}`,
  ]);
}

async function layoutStep(m: Migration): Promise<StepReport> {
  const { layout } = m.project;
  const details: string[] = [];
  const names: string[] = [];
  for await (const entry of Deno.readDir(layout.peaks)) {
    if (entry.isDirectory && LEGACY_SESSION_DIR.test(entry.name) && isValidId(entry.name)) {
      names.push(entry.name);
    }
  }
  for (const sid of names.sort()) {
    const from = layout.legacySessionDir(sid);
    const to = layout.sessionDir(sid);
    if (await exists(to)) {
      const backup = await moveToBackup(m, from);
      details.push(
        `${rel(m, to)}/ already exists; moved the 1.x copy ${rel(m, from)}/ to ${backup}/`,
      );
      continue;
    }
    details.push(`moved ${rel(m, from)}/ to ${rel(m, to)}/`);
    if (m.dryRun) continue;
    await assertWritable(m.project, to, "a session folder");
    await movePath(from, to);
    // A 2.0 session needs its meta file; the id carries the creation date.
    const createdAt = `${sid.slice(0, 10)}T00:00:00.000Z`;
    await createFileExclusive(
      layout.sessionMeta(sid),
      `${JSON.stringify({ sessionId: sid, createdAt, lastActivity: isoTime(m.now) }, null, 2)}\n`,
    );
  }
  for (const path of [layout.legacyActiveSkill, layout.legacySessionFile]) {
    if (!(await exists(path))) continue;
    details.push(`moved the 1.x state file ${rel(m, path)} to ${await moveToBackup(m, path)}`);
  }
  return step("runtime-layout", m, details);
}

export interface MigrationResult {
  steps: StepReport[];
  changed: boolean;
  backupDir: string | null;
  backups: string[];
  recordPath: string | null;
}

export async function migrateTo2(
  project: Project,
  now: Date,
  dryRun: boolean,
  signalsBefore: Signal[],
): Promise<MigrationResult> {
  const stamp = fileTimestamp(now);
  const m: Migration = {
    project,
    now,
    dryRun,
    backupDir: project.layout.upgradeBackupDir(stamp),
    backups: [],
  };
  const run = async (): Promise<MigrationResult> => {
    const steps = [
      await workspaceStep(m),
      await preferencesStep(m),
      await gitignoreStep(m),
      await layoutStep(m),
      await requestArtefactsStep(m),
      await migrateStandards(m),
    ];
    const changed = steps.some((s) => s.status === "changed" || s.status === "planned");
    const recordPath = project.layout.upgradeRecord(stamp);
    let record: StepReport = { step: "upgrade-record", status: "unchanged", details: [] };
    if (changed) {
      record = step("upgrade-record", m, [`wrote ${rel(m, recordPath)}`]);
      if (!dryRun) {
        await assertWritable(project, recordPath, "the upgrade record");
        const body = {
          from: "1.x",
          to: "2.0",
          at: isoTime(now),
          signals: signalsBefore,
          steps,
          backupDir: m.backups.length ? rel(m, m.backupDir) : null,
          backups: m.backups,
        };
        await createFileExclusive(recordPath, `${JSON.stringify(body, null, 2)}\n`);
      }
    }
    return {
      steps: [...steps, record],
      changed,
      backupDir: m.backups.length ? rel(m, m.backupDir) : null,
      backups: m.backups,
      recordPath: changed ? rel(m, recordPath) : null,
    };
  };
  // One migration at a time; a dry run takes no lock (it writes nothing).
  return dryRun ? await run() : await withLock(project.layout.upgradeDir, run);
}
