/**
 * Rebuilding a batch file from its members' records: the repair offered when
 * a batch file is unreadable. Each record carries its batch id and number, so
 * the members, their order and the counter can all be recovered; numbering
 * continues after the highest number ever handed out (archived members
 * included), and two records that ended up with the same number (a batch file
 * lost and started again) are told apart by giving the later ones fresh
 * numbers. The broken file's bytes are kept beside it.
 */
import type { Project } from "../workspace/project.ts";
import { batchSchemas } from "../state/batch.ts";
import { z } from "../infra/zod.ts";
import { PeaksError } from "../infra/errors.ts";
import { withLock } from "../infra/fs/lock.ts";
import { movePath, writeJsonAtomic } from "../infra/fs/files.ts";
import { readValidated } from "../infra/fs/json.ts";
import { type DispatchRecord, listRecords, updateRecord } from "../record/record.ts";
import { recordFileOf } from "../record/names.ts";
import { displayPath } from "../workspace/paths.ts";
import { compareText, fileTimestamp, isoTime } from "../infra/ids.ts";
import {
  archivedCount,
  type Batch,
  BATCH_VERSION,
  BatchFile,
  type BatchMember,
  batchReadOptions,
  settlePending,
} from "./batch.ts";

export interface RebuiltBatch {
  batch: Batch;
  /** Where the unreadable file's bytes were kept, when there was one. */
  keptAside: string | null;
  /** Records that got a fresh number because another record already had theirs. */
  renumbered: Array<{ recordPath: string; from: number; to: number }>;
  /** Records of the session that could not be read (they may belong to the batch). */
  unreadable: Array<{ recordPath: string; reason: string; repair: string | null }>;
}

async function currentOrAside(
  project: Project,
  sid: string,
  batchId: string,
  now: Date,
): Promise<{ current: Batch | undefined; keptAside: string | null }> {
  const path = project.layout.batch(sid, batchId);
  try {
    const current = await readValidated(path, BatchFile, batchReadOptions(project, sid, batchId));
    return { current: current && settlePending(project, sid, current), keptAside: null };
  } catch (error) {
    if (!(error instanceof PeaksError) || error.code !== "RECORD_UNREADABLE") throw error;
    const aside = `${path}.corrupt-${fileTimestamp(now)}`;
    await movePath(path, aside);
    return { current: undefined, keptAside: aside };
  }
}

interface Numbered {
  path: string;
  record: DispatchRecord;
  n: number;
}

/**
 * Keeps the first record (by dispatch time) on each number not `reserved`;
 * the others get numbers after `top`.
 */
function assignNumbers(
  entries: Array<{ path: string; record: DispatchRecord }>,
  top: number,
  reserved: number[],
) {
  const sorted = [...entries].sort((a, b) =>
    a.record.dispatchedInBatch - b.record.dispatchedInBatch ||
    compareText(a.record.createdAt, b.record.createdAt) || compareText(a.path, b.path)
  );
  const taken = new Set<number>(reserved);
  const numbered: Numbered[] = [];
  let next = top;
  for (const entry of sorted) {
    const n = entry.record.dispatchedInBatch;
    const fresh = taken.has(n) ? ++next : n;
    taken.add(fresh);
    numbered.push({ ...entry, n: fresh });
  }
  return { numbered: numbered.sort((a, b) => a.n - b.n), count: next };
}

/** Writes the fresh numbers into the records that got one. */
async function renumber(project: Project, numbered: Numbered[]) {
  const renumbered: RebuiltBatch["renumbered"] = [];
  for (const entry of numbered) {
    if (entry.n === entry.record.dispatchedInBatch) continue;
    await updateRecord(
      entry.path,
      (record) =>
        record
          ? { value: { ...record, dispatchedInBatch: entry.n }, result: undefined }
          : { result: undefined },
    );
    renumbered.push({
      recordPath: displayPath(project.root, entry.path),
      from: entry.record.dispatchedInBatch,
      to: entry.n,
    });
  }
  return renumbered;
}

/**
 * Rebuilds `batch-<id>.json` under its lock (so no dispatch joins meanwhile)
 * from the session's records that carry the batch id. Refuses when there is
 * neither a batch file nor a record of the batch.
 */
export function rebuildBatch(
  project: Project,
  sid: string,
  batchId: string,
  now: Date,
): Promise<RebuiltBatch> {
  const path = project.layout.batch(sid, batchId);
  return withLock(path, async () => {
    const { current, keptAside } = await currentOrAside(project, sid, batchId, now);
    const listing = await listRecords(project, sid);
    const mine = listing.records.filter((e) => e.record.batchId === batchId);
    if (!current && !keptAside && mine.length === 0) {
      throw new PeaksError(
        "BATCH_NOT_FOUND",
        `Session ${sid} has no batch ${batchId}: no batch file and no record carrying it.`,
        { data: { batchId, sessionId: sid } },
      );
    }
    const archived = await archivedCount(project, sid, batchId);
    const top = Math.max(
      archived,
      current?.count ?? 0,
      ...mine.map((e) => e.record.dispatchedInBatch),
    );
    // A listed member whose record cannot be read right now keeps its place and number.
    const broken = new Set(listing.unreadable.map((u) => recordFileOf(u.path)));
    const kept = (current?.members ?? []).filter((m) => broken.has(m.record));
    const { numbered, count } = assignNumbers(mine, top, kept.map((m) => m.n));
    const renumbered = await renumber(project, numbered);
    const at = isoTime(now);
    const members: BatchMember[] = [
      ...kept,
      ...numbered.map((e) => ({
        n: e.n,
        role: e.record.role,
        requestId: e.record.requestId,
        record: recordFileOf(e.path),
        addedAt: e.record.createdAt,
      })),
    ].sort((a, b) => a.n - b.n);
    const { pending: _, ...base } = current ?? {};
    const batch: Batch = {
      ...base,
      version: BATCH_VERSION,
      batchId,
      sessionId: sid,
      createdAt: current?.createdAt ?? members[0]?.addedAt ?? at,
      updatedAt: at,
      count,
      members,
      ...(archived ? { archivedCount: archived } : {}),
    };
    await writeJsonAtomic(path, batchSchemas(z).BatchSchema.parse(batch));
    const unreadable = listing.unreadable.map(({ path, error }) => ({
      recordPath: displayPath(project.root, path),
      reason: String(error.data.reason ?? error.message),
      repair: error.nextActions[0] ?? null,
    }));
    return {
      batch,
      keptAside: keptAside && displayPath(project.root, keptAside),
      renumbered,
      unreadable,
    };
  });
}
