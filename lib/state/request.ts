/** The zod schema of a request's front matter (file.ts). */
import { z } from "../infra/zod.ts";
import { QA_VERDICTS, REQUEST_ROLES, REQUEST_TYPES } from "../request/kinds.ts";

export const RequestMetaSchema = z.object({
  rid: z.string(),
  role: z.enum(REQUEST_ROLES),
  type: z.enum(REQUEST_TYPES),
  state: z.string().min(1),
  createdAt: z.string(),
  updatedAt: z.string(),
  verdict: z.enum(QA_VERDICTS).optional(),
  blockedFrom: z.string().min(1).optional(),
  blockedReason: z.string().min(1).optional(),
  /** QA only: how many times the work came back from RD for another test run. */
  reworkRound: z.string().regex(/^[1-9][0-9]?$/).optional(),
});
export type RequestMeta = z.infer<typeof RequestMetaSchema>;
