/**
 * A batch file (`.peaks/_runtime/<sid>/agents/batch-<id>.json`): the
 * sub-agents dispatched together, numbered in order. Its version and its zod
 * schema; lib/batch/ reads and writes it.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";
import { RECORD_FILE_PATTERN } from "./record.ts";

/** The version of batch files this peaks writes. */
export const BATCH_VERSION = 1;

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const batchSchemas = schemas((z: Zod) => {
  const BatchMemberSchema = z.object({
    n: z.number().int().min(1),
    role: z.string(),
    requestId: z.string(),
    /** The record's file name in the same folder (a name, never a path). */
    record: z.string().regex(RECORD_FILE_PATTERN, "not a dispatch record file name"),
    addedAt: z.string(),
  });

  const BatchSchema = z.looseObject({
    version: z.literal(BATCH_VERSION),
    batchId: z.string(),
    sessionId: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    count: z.number().int().min(0),
    members: z.array(BatchMemberSchema),
    /** Numbers handed out whose records may not exist yet (a join in progress or killed). */
    pending: z.array(BatchMemberSchema).optional(),
    /**
     * Members 1..archivedCount were archived by cleanup: numbering goes on after
     * them, and `members` starts at archivedCount + 1.
     */
    archivedCount: z.number().int().min(1).optional(),
  });
  return { BatchMemberSchema, BatchSchema };
});
type Built = ReturnType<typeof batchSchemas>;
export type BatchMember = z.infer<Built["BatchMemberSchema"]>;
export type Batch = z.infer<Built["BatchSchema"]>;
