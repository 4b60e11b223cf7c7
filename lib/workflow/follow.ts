/**
 * Presence follows the workflow: the commands only the orchestrator runs (transitions, swarm
 * plan and converge, finalize) move the caller's presence to the phase of the next step, so the
 * status header never shows a phase the workflow left. Presence that was never claimed stays
 * unclaimed: only `skill presence:set` creates it.
 */
import type { Env } from "../infra/command/ctx.ts";
import { readPresence, setPresence } from "../presence/presence.ts";
import { callerIdFromEnv } from "../presence/caller.ts";
import type { SessionContext } from "../session/session.ts";

/** Where the workflow is, as presence shows it: the gate and the role at work. */
export interface Phase {
  gate: string;
  role: string;
}

export const PHASES = {
  prd: { gate: "prd", role: "prd" },
  swarm: { gate: "swarm-fan-out", role: "sc" },
  ui: { gate: "ui-direction", role: "ui" },
  rd: { gate: "rd-implementation", role: "rd" },
  qa: { gate: "qa", role: "qa" },
  sc: { gate: "sc", role: "sc" },
  txt: { gate: "txt", role: "txt" },
  done: { gate: "done", role: "txt" },
} as const satisfies Record<string, Phase>;

export async function followPhase(
  env: Env,
  session: SessionContext,
  phase: Partial<Phase>,
  now: Date,
): Promise<void> {
  const { project, sessionId } = session;
  const callerId = await callerIdFromEnv(env);
  const { presence } = await readPresence(project, sessionId, callerId).catch(() => ({
    presence: undefined,
  }));
  if (!presence) return;
  if (presence.gate === phase.gate && presence.role === phase.role) return;
  await setPresence(project, sessionId, callerId, { skill: presence.skill, ...phase }, now);
}
