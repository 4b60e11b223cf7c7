/**
 * Batch files (`.peaks/_sub_agents/<sid>/batch-<batchId>.json`): the counter
 * that numbers a batch's members and the list of their record files. Members
 * join under the batch file's lock, so numbers are unique under any
 * concurrency. Joining is crash-safe: the numbers and record names are first
 * written as `pending` (the intent), then the records are created, then they
 * move into `members`. A writer killed in between leaves a pending entry that
 * readers resolve (a member when its record exists, nothing otherwise) and the
 * next joiner settles on disk, so a number is never handed out twice and a
 * record is never left outside its batch.
 */
import { isNotFound } from "../infra/errors.ts";
import type { Project } from "../workspace/project.ts";
import { type ReadOptions, readValidated, updateJson } from "../infra/fs/json.ts";
import { join } from "../infra/std.ts";
import { removePath, writeJsonAtomic } from "../infra/fs/files.ts";
import { peaksLine } from "../infra/shell.ts";
import { loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { BATCH_SHAPE } from "../state/shapes.ts";
import type { Batch } from "../state/batch.ts";

import { BATCH_VERSION } from "../state/batch.ts";
import { isoTime } from "../infra/ids.ts";

export { BATCH_VERSION };

/** More members than this in one batch is worth a warning (BATCH_OVER_LIMIT), not an error. */
export const BATCH_SOFT_LIMIT = 6;

export type { Batch, BatchMember } from "../state/batch.ts";

/** Batch files, checked by their shape (zod only for what the shape doubts). */
export const BatchFile = stateSchema<Batch>(
  BATCH_SHAPE,
  () =>
    import("../state/batch.ts").then((m) => loadSchemas(m.batchSchemas)).then((s) => s.BatchSchema),
);

/** The repair of a batch file: rebuilt from its members' records, the broken bytes kept aside. */
export function batchRepair(project: Project, sid: string, batchId: string): string {
  return peaksLine(project.root, ["sub-agent", "repair", "--batch", batchId, "--session-id", sid]);
}

export function batchReadOptions(project: Project, sid: string, batchId: string): ReadOptions {
  return { what: "batch file", repair: [batchRepair(project, sid, batchId)] };
}

/** The batch as cleanup archived it, if it did. */
export function archivedBatchPath(project: Project, sid: string, batchId: string): string {
  return join(project.layout.archiveDir(sid), `batch-${batchId}.json`);
}

/** How many numbers an archived batch of this id used (0 when none was archived). */
export async function archivedCount(project: Project, sid: string, batchId: string) {
  const path = archivedBatchPath(project, sid, batchId);
  const archived = await readValidated(path, BatchFile, { what: "archived batch file" })
    .catch(() => undefined);
  return archived?.count ?? 0;
}

function recordExists(project: Project, sid: string, name: string): boolean {
  try {
    Deno.lstatSync(project.layout.dispatchRecord(sid, name));
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/**
 * Folds pending entries into the members: those whose record exists become
 * members (records are created in order, so they form a prefix), the rest are
 * dropped and their numbers given back.
 */
export function settlePending(project: Project, sid: string, batch: Batch): Batch {
  if (!batch.pending) return batch;
  const members = [...batch.members];
  for (const entry of batch.pending) {
    if (!recordExists(project, sid, entry.record)) break;
    members.push(entry);
  }
  const { pending: _, ...rest } = batch;
  return { ...rest, members, count: members.at(-1)?.n ?? 0 };
}

/** The batch as readers see it: pending entries already settled (nothing is written). */
export async function readBatch(project: Project, sid: string, batchId: string) {
  const path = project.layout.batch(sid, batchId);
  const batch = await readValidated(path, BatchFile, batchReadOptions(project, sid, batchId));
  return batch && settlePending(project, sid, batch);
}

export interface Joining {
  role: string;
  requestId: string;
  /** The record file name (in the session folder) the member's record will have. */
  record: string;
}

/**
 * Adds members to a batch (creating it when new). The numbers are reserved
 * on disk first; then `create(n, member)` is called for each member while the
 * lock is held and must create `member.record` (or throw). If a create fails,
 * the members created before it are still recorded and the error propagates.
 * `annotate` sees the batch (new or current) under the lock before anyone
 * joins; throwing from it leaves the file untouched, and what it changes is
 * written with the members.
 *
 * A join syncs three files to the disk (`fdatasync` before the rename or link
 * that publishes each), and each sync stays: the intent, so that after a power
 * cut a record on disk is never missing from its batch and its number never
 * handed out again; each record, since the batch names it from then on; and
 * the final batch, which replaces the intent: renamed before its bytes reached
 * the disk, it could come back empty after a power cut. Temp file + rename is
 * what keeps each file whole against a killed process; the syncs are for a
 * machine that stops.
 */
export async function joinBatch(
  project: Project,
  sid: string,
  batchId: string,
  joining: Joining[],
  now: Date,
  create: (n: number, member: Joining) => Promise<void>,
  annotate?: (batch: Batch) => void,
): Promise<{ numbers: number[]; batch: Batch }> {
  const path = project.layout.batch(sid, batchId);
  let failure: unknown;
  const options = batchReadOptions(project, sid, batchId);
  const result = await updateJson(path, BatchFile, options, async (current) => {
    const at = isoTime(now);
    const settled: Batch = current
      ? settlePending(project, sid, current)
      : await freshBatch(project, sid, batchId, at);
    annotate?.(settled);
    const reserved = joining.map((member, i) => ({
      n: settled.count + i + 1,
      role: member.role,
      requestId: member.requestId,
      record: member.record,
      addedAt: at,
    }));
    await writeJsonAtomic(path, {
      ...settled,
      count: settled.count + reserved.length,
      updatedAt: at,
      pending: reserved,
    });
    const batch: Batch = { ...settled, members: [...settled.members] };
    const numbers: number[] = [];
    for (const [i, entry] of reserved.entries()) {
      try {
        await create(entry.n, joining[i]);
      } catch (error) {
        failure = error;
        break;
      }
      batch.members.push(entry);
      batch.count = entry.n;
      numbers.push(entry.n);
    }
    batch.updatedAt = at;
    if (!current && numbers.length === 0) {
      // Nothing joined a batch that did not exist: take the intent back off the disk.
      await removePath(path).catch(() => {});
      return { result: { numbers, batch } };
    }
    // Always written: it replaces the intent above with what was really created.
    return { value: batch, result: { numbers, batch } };
  });
  if (failure !== undefined) throw failure;
  return result;
}

/** A batch file about to be created; after an archived batch of the same id, numbering goes on. */
async function freshBatch(project: Project, sid: string, batchId: string, at: string) {
  const archived = await archivedCount(project, sid, batchId);
  return {
    version: BATCH_VERSION,
    batchId,
    sessionId: sid,
    createdAt: at,
    updatedAt: at,
    count: archived,
    members: [],
    ...(archived ? { archivedCount: archived } : {}),
  } satisfies Batch;
}

export { type BatchFileInfo, listBatchFiles } from "./files.ts";
