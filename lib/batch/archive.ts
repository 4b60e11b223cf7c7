/**
 * Archiving finished batches (`sub-agent cleanup`). The unit is the batch,
 * never the single record: a batch moves to `_sub_agents/_archive/<sid>/`
 * (records, batch file, channel) only when every member has finished before
 * the cutoff and none is unreadable, so status and watch never see a live
 * batch with members gone. The decision is taken again under the batch lock,
 * which dispatch holds while it joins, so a dispatch racing cleanup either
 * joins first (and the batch stays) or finds the batch archived and numbers
 * on after it (see `archivedCount`).
 */
import type { Project } from "../workspace/project.ts";
import { displayPath } from "../workspace/paths.ts";
import { join } from "../infra/std.ts";
import { exists, movePath, removePath, writeJsonAtomic } from "../infra/fs/files.ts";
import { lockPathFor, withLock } from "../infra/fs/lock.ts";
import { readValidated } from "../infra/fs/json.ts";
import { type DispatchRecord, readRecords, type RecordEntry } from "../record/record.ts";
import { isTerminal } from "../state/record.ts";
import { recordFileOf } from "../record/names.ts";
import { archivedBatchPath, type Batch, BatchFile, readBatch } from "./batch.ts";

export interface ArchivedRecord {
  recordPath: string;
  to: string;
}

export interface BatchArchive {
  batchId: string;
  records: ArchivedRecord[];
  /** Where the batch file went (null when the batch had no file). */
  to: string | null;
}

/** Finished before the cutoff (counted from completion). */
export function finishedBefore(record: DispatchRecord, cutoff: number): boolean {
  const finishedAt = Date.parse(record.completedAt ?? record.updatedAt);
  // A slice's record waits until its worktree is settled and gone.
  return isTerminal(record.status) && Number.isFinite(finishedAt) && finishedAt <= cutoff &&
    (!record.worktree || record.worktree.removedAt !== null);
}

/** The session's records grouped by batch id. */
export function byBatch(records: RecordEntry[]): Map<string, RecordEntry[]> {
  const groups = new Map<string, RecordEntry[]>();
  for (const entry of records) {
    const group = groups.get(entry.record.batchId) ?? [];
    group.push(entry);
    groups.set(entry.record.batchId, group);
  }
  return groups;
}

/**
 * A batch's records, read now: those its file lists plus any record that
 * carries its id. Undefined when the batch cannot be archived: its file is
 * unreadable, a member is unreadable or missing, or one has not finished
 * before the cutoff.
 */
async function dueMembers(
  project: Project,
  sid: string,
  batchId: string,
  known: RecordEntry[],
  cutoff: number,
): Promise<{ batch: Batch | undefined; records: RecordEntry[] } | undefined> {
  let batch: Batch | undefined;
  try {
    batch = await readBatch(project, sid, batchId);
  } catch {
    return undefined;
  }
  const paths = new Set(known.map((e) => e.path));
  for (const member of batch?.members ?? []) {
    paths.add(project.layout.dispatchRecord(sid, member.record));
  }
  const listing = await readRecords([...paths]);
  if (listing.unreadable.length || listing.records.length !== paths.size) return undefined;
  if (!listing.records.every((e) => finishedBefore(e.record, cutoff))) return undefined;
  return { batch, records: listing.records };
}

/** Moves a finished record under its lock, after checking again that it is finished. */
async function archiveRecord(path: string, target: string): Promise<boolean> {
  const moved = await withLock(path, async () => {
    const [entry] = (await readRecords([path])).records;
    if (!entry || !isTerminal(entry.record.status)) return false;
    await movePath(path, target);
    return true;
  });
  // With the record gone nothing recreates its lock file, so no writer can be split across two.
  if (moved) await removePath(lockPathFor(path)).catch(() => {});
  return moved;
}

/** The archived batch file: this batch's members after any archived earlier under the same id. */
async function archiveBatchFile(project: Project, sid: string, batch: Batch): Promise<string> {
  const to = archivedBatchPath(project, sid, batch.batchId);
  const earlier = await readValidated(to, BatchFile, { what: "archived batch file" })
    .catch(() => undefined);
  const { archivedCount: _, ...rest } = batch;
  await writeJsonAtomic(to, {
    ...rest,
    members: [...(earlier?.members ?? []), ...batch.members],
  });
  // The batch file itself goes; its lock file stays, since a dispatch may be waiting on it.
  await removePath(project.layout.batch(sid, batch.batchId));
  return to;
}

/**
 * Archives one batch if it is due, deciding under the batch lock. Returns
 * undefined when it is not (a member still open, recent, unreadable or gone).
 * With `dryRun`, only says what would move.
 */
export function archiveBatch(
  project: Project,
  sid: string,
  batchId: string,
  options: { known: RecordEntry[]; cutoff: number; dryRun: boolean },
): Promise<BatchArchive | undefined> {
  const archive = project.layout.archiveDir(sid);
  const shown = (path: string) => displayPath(project.root, path);
  return withLock(project.layout.batch(sid, batchId), async () => {
    const due = await dueMembers(project, sid, batchId, options.known, options.cutoff);
    if (!due) return undefined;
    const records: ArchivedRecord[] = [];
    for (const { path } of due.records) {
      const target = join(archive, recordFileOf(path));
      if (options.dryRun || await archiveRecord(path, target)) {
        records.push({ recordPath: shown(path), to: shown(target) });
      }
    }
    const batchTo = archivedBatchPath(project, sid, batchId);
    if (options.dryRun) return { batchId, records, to: due.batch ? shown(batchTo) : null };
    const to = due.batch ? await archiveBatchFile(project, sid, due.batch) : null;
    const channel = project.layout.sharedChannel(sid, batchId);
    // Its lock file stays too: a share may be waiting on it.
    if (await exists(channel)) await movePath(channel, join(archive, "shared", `${batchId}.json`));
    return { batchId, records, to: to && shown(to) };
  });
}
