/** The zod schemas of a batch file (batch.ts). */
import { z } from "../infra/zod.ts";
import { RECORD_FILE_PATTERN } from "../record/names.ts";
import { BATCH_VERSION } from "../batch/files.ts";

export const BatchMemberSchema = z.object({
  n: z.number().int().min(1),
  role: z.string(),
  requestId: z.string(),
  /** The record's file name in the same folder (a name, never a path). */
  record: z.string().regex(RECORD_FILE_PATTERN, "not a dispatch record file name"),
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
  /** Numbers handed out whose records may not exist yet (a join in progress or killed). */
  pending: z.array(BatchMemberSchema).optional(),
  /**
   * Members 1..archivedCount were archived by cleanup: numbering goes on after
   * them, and `members` starts at archivedCount + 1.
   */
  archivedCount: z.number().int().min(1).optional(),
});
export type Batch = z.infer<typeof BatchSchema>;
