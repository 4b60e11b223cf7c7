/**
 * The swarm plan (`.peaks/_runtime/<sid>/sc/swarm-plan-<rid>.json`): its version,
 * the members, the fan-out choices, the convergence outcomes, and the zod
 * schema that decides a plan its shape (SWARM_PLAN_SHAPE) doubts.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";
import { PRESENCE_MODES } from "./presence.ts";
import { REQUEST_TYPES } from "./request.ts";

export const SWARM_PLAN_VERSION = 1;

/** The swarm's members, in the order they are listed and planned. */
export const SWARM_ROLES = ["ui", "rd-planning", "qa-test-cases"] as const;
export type SwarmRole = (typeof SWARM_ROLES)[number];

export const SWARM_CHOICES = ["full", "backend-only", "sequential"] as const;
export type SwarmChoice = (typeof SWARM_CHOICES)[number];

/** Handoff notes of the degradation table; `ok` when every member delivered. */
export const SWARM_OUTCOMES = [
  "ok",
  "ui-design-missing",
  "tech-doc-missing",
  "qa-test-cases-missing",
  "swarm-degraded-to-sequential",
  "swarm-aborted",
  "swarm-skipped",
] as const;
export type SwarmOutcome = (typeof SWARM_OUTCOMES)[number];

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const swarmPlanSchemas = schemas((z: Zod) => {
  const MemberResultSchema = z.object({
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
    /** Its line of the degradation table when it failed; the reason it gave when it skipped. */
    note: z.string().nullable(),
    finalizedAtConverge: z.boolean(),
  });

  const ConvergenceSchema = z.object({
    at: z.string(),
    outcome: z.enum(SWARM_OUTCOMES),
    handoffNotes: z.array(z.string()),
    members: z.array(MemberResultSchema),
  });

  const SwarmPlanSchema = z.object({
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
  return { MemberResultSchema, ConvergenceSchema, SwarmPlanSchema };
});
type Built = ReturnType<typeof swarmPlanSchemas>;
export type MemberResult = z.infer<Built["MemberResultSchema"]>;
export type Convergence = z.infer<Built["ConvergenceSchema"]>;
export type SwarmPlan = z.infer<Built["SwarmPlanSchema"]>;
