/**
 * A request file's front matter (`.peaks/_runtime/<sid>/<role>/requests/<rid>.md`):
 * the roles, request types and QA verdicts, and the zod schema. lib/request/
 * reads and writes it.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";

/** The roles, types and QA verdicts a request can have (file.ts). */
export const REQUEST_ROLES = ["prd", "ui", "rd", "qa", "sc", "txt"] as const;
export type RequestRole = (typeof REQUEST_ROLES)[number];

export const REQUEST_TYPES = ["feature", "bugfix", "refactor", "config", "docs", "chore"] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

/** How a QA request's `verdict-issued` state is qualified. */
export const QA_VERDICTS = ["pass", "return-to-rd", "blocked"] as const;
export type QaVerdict = (typeof QA_VERDICTS)[number];

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const requestSchemas = schemas((z: Zod) => {
  const RequestMetaSchema = z.object({
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
  return { RequestMetaSchema };
});
type Built = ReturnType<typeof requestSchemas>;
export type RequestMeta = z.infer<Built["RequestMetaSchema"]>;
