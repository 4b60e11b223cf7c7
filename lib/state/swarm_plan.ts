/**
 * The swarm plan (`.peaks/_runtime/<sid>/sc/swarm-plan.json`) as a zod schema:
 * what decides a plan its shape (SWARM_PLAN_SHAPE) doubts, and what
 * `deno task shapes` writes that shape from.
 */
import { z } from "../infra/zod.ts";
import { PRESENCE_MODES } from "../presence/presence.ts";
import { REQUEST_TYPES } from "../request/file.ts";
import {
  SWARM_CHOICES,
  SWARM_OUTCOMES,
  SWARM_PLAN_VERSION,
  SWARM_ROLES,
} from "../swarm/plan_names.ts";

export const MemberResultSchema = z.object({
  role: z.enum(SWARM_ROLES),
  final: z.enum(["ok", "skipped", "failed"]),
  /** Project-relative path of the member's newest record; null when it was never dispatched. */
  recordPath: z.string().nullable(),
  recordStatus: z.string().nullable(),
  resultStatus: z.enum(["ok", "blocked", "skipped"]).nullable(),
  /** Why the member counts as failed (empty when it did not). */
  reasons: z.array(z.string()),
  artefacts: z.array(z.object({
    path: z.string(),
    ok: z.boolean(),
    problems: z.array(z.string()),
  })),
  /** Its line of the degradation table when it failed. */
  note: z.string().nullable(),
  finalizedAtConverge: z.boolean(),
});
export type MemberResult = z.infer<typeof MemberResultSchema>;

export const ConvergenceSchema = z.object({
  at: z.string(),
  outcome: z.enum(SWARM_OUTCOMES),
  handoffNotes: z.array(z.string()),
  members: z.array(MemberResultSchema),
});
export type Convergence = z.infer<typeof ConvergenceSchema>;

export const SwarmPlanSchema = z.object({
  version: z.literal(SWARM_PLAN_VERSION),
  rid: z.string(),
  sessionId: z.string(),
  type: z.enum(REQUEST_TYPES),
  status: z.enum(["planned", "swarm-skipped", "converged"]),
  /** `swarm-skipped: type=<t>` for config, docs and chore requests. */
  note: z.string().nullable(),
  frontendOnly: z.boolean(),
  /** Where frontendOnly came from: the project scan, or false because the scan is absent or broken. */
  frontendOnlySource: z.enum(["scan", "absent", "unreadable"]),
  frontendKeywordHit: z.boolean(),
  matchedKeywords: z.array(z.string()),
  mode: z.enum(PRESENCE_MODES),
  modeSource: z.enum(["flag", "presence", "preference", "default"]),
  choice: z.enum(SWARM_CHOICES).nullable(),
  subAgents: z.array(z.enum(SWARM_ROLES)),
  /** The batch the swarm goes out in; null when skipped. */
  batchId: z.string().nullable(),
  dag: z.object({ path: z.string(), sha256: z.string() }).nullable(),
  decidedAt: z.string(),
  convergence: ConvergenceSchema.nullable(),
});
export type SwarmPlan = z.infer<typeof SwarmPlanSchema>;
