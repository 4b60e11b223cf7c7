/**
 * The swarm plan's words without zod: its version, the members, the fan-out
 * choices and the convergence outcomes (the schema is plan_schema.ts).
 */
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
