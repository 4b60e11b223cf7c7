/**
 * The per-role state graphs. Only the listed edges are legal; `blocked` is
 * reachable from every state, and a blocked request returns to the state it
 * was blocked from (recorded as `blockedFrom`), nowhere else.
 */
import type { RequestMeta, RequestRole } from "./file.ts";

export const BLOCKED = "blocked";
export const INITIAL_STATE = "draft";

/** Forward path of each role, in order; each state may move to the next one. */
export const ROLE_PATHS: Record<RequestRole, readonly string[]> = {
  prd: ["draft", "confirmed-by-user", "handed-off"],
  ui: ["draft", "direction-locked", "handed-off"],
  rd: ["draft", "spec-locked", "implemented", "qa-handoff"],
  qa: ["draft", "running", "verdict-issued"],
  sc: ["draft", "impact-recorded", "boundary-recorded", "handed-off"],
  txt: ["draft", "finalized"],
};

/**
 * The RD-QA repair loop: after QA returns the work (`--verdict return-to-rd`),
 * RD steps back from qa-handoff to implemented, and QA from verdict-issued to
 * running for the next test run. These edges open only in that situation.
 */
export const REWORK_EDGES: Partial<Record<RequestRole, { from: string; to: string }>> = {
  rd: { from: "qa-handoff", to: "implemented" },
  qa: { from: "verdict-issued", to: "running" },
};

/** Test runs QA may repeat after returning work to RD, before the user must decide. */
export const REWORK_LIMIT = 3;

/**
 * Transitions that need `--confirm` when presence mode is assisted or strict:
 * the points where the user, not the model, decides.
 */
export const CONFIRM_TRANSITIONS: ReadonlySet<string> = new Set([
  "prd:confirmed-by-user",
  "ui:direction-locked",
  "qa:verdict-issued",
  "txt:finalized",
]);

export function roleStates(role: RequestRole): string[] {
  return [...ROLE_PATHS[role], BLOCKED];
}

export function isRoleState(role: RequestRole, state: string): boolean {
  return roleStates(role).includes(state);
}

/** The forward successor of a state, when there is one. */
export function nextState(role: RequestRole, state: string): string | undefined {
  const path = ROLE_PATHS[role];
  const index = path.indexOf(state);
  return index === -1 ? undefined : path[index + 1];
}

export type MoveKind = "forward" | "block" | "unblock" | "same" | "rework";

export type MoveCheck =
  | { ok: true; kind: MoveKind }
  | { ok: false; allowed: string[] };

/** The state a blocked request returns to (draft when the file lost `blockedFrom`). */
export function resumeState(meta: Pick<RequestMeta, "blockedFrom">): string {
  return meta.blockedFrom ?? INITIAL_STATE;
}

/** Where a request in `meta.state` may go next (the same state excluded). */
export function allowedTargets(
  meta: Pick<RequestMeta, "role" | "state" | "blockedFrom">,
): string[] {
  if (meta.state === BLOCKED) return [resumeState(meta)];
  const next = nextState(meta.role, meta.state);
  const rework = REWORK_EDGES[meta.role];
  const back = rework && rework.from === meta.state ? [rework.to] : [];
  return next ? [next, ...back, BLOCKED] : [...back, BLOCKED];
}

/** Classifies a requested move, or says which targets are allowed instead. */
export function checkMove(
  meta: Pick<RequestMeta, "role" | "state" | "blockedFrom">,
  to: string,
): MoveCheck {
  if (to === meta.state) return { ok: true, kind: "same" };
  if (to === BLOCKED) return { ok: true, kind: "block" };
  if (meta.state === BLOCKED) {
    return resumeState(meta) === to
      ? { ok: true, kind: "unblock" }
      : { ok: false, allowed: allowedTargets(meta) };
  }
  if (nextState(meta.role, meta.state) === to) return { ok: true, kind: "forward" };
  const rework = REWORK_EDGES[meta.role];
  if (rework && rework.from === meta.state && rework.to === to) return { ok: true, kind: "rework" };
  return { ok: false, allowed: allowedTargets(meta) };
}

export function needsConfirm(role: RequestRole, to: string): boolean {
  return CONFIRM_TRANSITIONS.has(`${role}:${to}`);
}
