/**
 * The swarm plan (`.peaks/_runtime/<sid>/sc/swarm-plan.json`): which
 * sub-agents `swarm plan` decided to launch for a request and why, the batch
 * and DAG they go out in, and, once `swarm converge` ran, each member's final
 * status and the degradation outcome. Dispatch reads two of its booleans for
 * the runtime arguments; SC and TXT read it to audit what was launched.
 */
import { z } from "../core/zod.ts";
import { PRESENCE_MODES } from "../core/presence/presence.ts";
import type { Project } from "../core/project/project.ts";
import { REQUEST_TYPES } from "../core/request/file.ts";
import { readValidated, updateJson } from "../core/fs/json.ts";
import { commandLine } from "../core/shell.ts";

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

/** A broken plan is moved aside (bytes kept); `swarm plan` then writes a fresh one. */
function readOptions(project: Project, sid: string) {
  const path = project.layout.swarmPlan(sid);
  return { what: "swarm plan", repair: [commandLine(["mv", path, `${path}.corrupt`])] };
}

export function readSwarmPlan(project: Project, sid: string): Promise<SwarmPlan | undefined> {
  return readValidated(project.layout.swarmPlan(sid), SwarmPlanSchema, readOptions(project, sid));
}

/** Replaces or edits the plan under its lock; `change` returns no value to leave it. */
export function updateSwarmPlan<R>(
  project: Project,
  sid: string,
  change: (
    current: SwarmPlan | undefined,
  ) => Promise<{ value?: SwarmPlan; result: R }> | { value?: SwarmPlan; result: R },
): Promise<R> {
  return updateJson(
    project.layout.swarmPlan(sid),
    SwarmPlanSchema,
    readOptions(project, sid),
    change,
  );
}
