/**
 * Batch files (`.peaks/_sub_agents/<sid>/batch-<batchId>.json`): the counter
 * that numbers a batch's members and the list of their record files. Members
 * join under the batch file's lock, and each member's record is created
 * while the lock is held, so numbers are unique under any concurrency and a
 * listed member always has its record on disk.
 */
import { z } from "zod";
import { isNotFound } from "./errors.ts";
import { isValidId } from "./ids.ts";
import type { Project } from "./project.ts";
import { readValidated, updateJson } from "./store.ts";
import { commandLine } from "./shell.ts";

export const BATCH_VERSION = 1;

/** More members than this in one batch is worth a warning (BATCH_OVER_LIMIT), not an error. */
export const BATCH_SOFT_LIMIT = 6;

export const BatchMemberSchema = z.object({
  n: z.number().int().min(1),
  role: z.string(),
  requestId: z.string(),
  /** The record's file name in the same folder. */
  record: z.string(),
  addedAt: z.string(),
});
export type BatchMember = z.infer<typeof BatchMemberSchema>;

export const BatchSchema = z.looseObject({
  version: z.literal(BATCH_VERSION),
  batchId: z.string(),
  sessionId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  count: z.number().int().min(0),
  members: z.array(BatchMemberSchema),
});
export type Batch = z.infer<typeof BatchSchema>;

function batchReadOptions(path: string) {
  return {
    what: "batch file",
    repair: [commandLine(["mv", path, `${path}.corrupt`])],
  };
}

export function readBatch(project: Project, sid: string, batchId: string) {
  const path = project.layout.batch(sid, batchId);
  return readValidated(path, BatchSchema, batchReadOptions(path));
}

export interface Joining {
  role: string;
  requestId: string;
}

/**
 * Adds members to a batch (creating it when new). `create(n, member)` is
 * called with each member's number while the lock is held and returns the
 * record file name it created. If a create fails, the members created before
 * it are still recorded and the error propagates. `annotate` sees the batch
 * (new or current) under the lock before anyone joins; throwing from it
 * leaves the file untouched, and what it changes is written with the members.
 */
export async function joinBatch(
  project: Project,
  sid: string,
  batchId: string,
  joining: Joining[],
  now: Date,
  create: (n: number, member: Joining) => Promise<string>,
  annotate?: (batch: Batch) => void,
): Promise<{ numbers: number[]; batch: Batch }> {
  const path = project.layout.batch(sid, batchId);
  let failure: unknown;
  const result = await updateJson(path, BatchSchema, batchReadOptions(path), async (current) => {
    const at = now.toISOString();
    const batch: Batch = current ?? {
      version: BATCH_VERSION,
      batchId,
      sessionId: sid,
      createdAt: at,
      updatedAt: at,
      count: 0,
      members: [],
    };
    annotate?.(batch);
    const numbers: number[] = [];
    for (const member of joining) {
      const n = batch.count + 1;
      try {
        const record = await create(n, member);
        batch.members.push({
          n,
          role: member.role,
          requestId: member.requestId,
          record,
          addedAt: at,
        });
        batch.count = n;
        numbers.push(n);
      } catch (error) {
        failure = error;
        break;
      }
    }
    batch.updatedAt = at;
    return { value: numbers.length ? batch : undefined, result: { numbers, batch } };
  });
  if (failure !== undefined) throw failure;
  return result;
}

export interface BatchFileInfo {
  batchId: string;
  path: string;
  mtimeMs: number;
}

/** The session's batch files, most recently changed first. */
export async function listBatchFiles(project: Project, sid: string): Promise<BatchFileInfo[]> {
  const dir = project.layout.agentsDir(sid);
  const found: BatchFileInfo[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const match = /^batch-(.+)\.json$/.exec(entry.name);
      if (!entry.isFile || !match || !isValidId(match[1])) continue;
      found.push({ batchId: match[1], path: project.layout.batch(sid, match[1]), mtimeMs: 0 });
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
    return [];
  }
  await Promise.all(found.map(async (info) => {
    try {
      info.mtimeMs = (await Deno.stat(info.path)).mtime?.getTime() ?? 0;
    } catch {
      info.mtimeMs = 0;
    }
  }));
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs || b.batchId.localeCompare(a.batchId));
}
