/**
 * What `swarm plan` decides from: the PRD (its state gates the plan, its type
 * and body shape it), the workflow mode, and the project scan's frontendOnly.
 * A broken scan or preferences file is a warning, never a failed plan.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { type ErrorCode, gateError, PeaksError, type Warning } from "../infra/errors.ts";
import { readPreferences } from "../preferences/preferences.ts";
import { type Presence, type PresenceMode, readPresence } from "../presence/presence.ts";
import { callerIdFromEnv } from "../presence/caller.ts";
import { readRequest, type RequestDocument } from "../request/file.ts";
import { readScanResult } from "../scan/result.ts";
import type { SessionContext } from "../session/session.ts";
import type { SwarmPlan } from "./plan_file.ts";
import { peaksCommand } from "../session/session.ts";

const PRD_READY = ["confirmed-by-user", "handed-off"];

function soft(warnings: Warning[], error: unknown, code: ErrorCode): void {
  if (!(error instanceof PeaksError)) throw error;
  warnings.push({ code, message: error.message, path: error.data.path });
}

/** The PRD request, in a state the swarm may plan from; PRD_NOT_READY (exit 3) otherwise. */
export async function readyPrd(session: SessionContext, rid: string): Promise<RequestDocument> {
  const { project, sessionId } = session;
  const prd = await readRequest(project, sessionId, "prd", rid);
  if (!prd) {
    throw gateError(
      "PRD_NOT_READY",
      `There is no PRD request ${rid} in session ${sessionId}; the swarm is planned from a confirmed PRD.`,
      {
        data: { rid, state: null },
        nextActions: [peaksCommand(session, ["request", "init", "--role", "prd", "--id", rid])],
      },
    );
  }
  const { state, blockedFrom } = prd.meta;
  if (PRD_READY.includes(state)) return prd;
  const target = state === "blocked" ? blockedFrom ?? "draft" : "confirmed-by-user";
  throw gateError(
    "PRD_NOT_READY",
    `The PRD request ${rid} is ${state}; the swarm needs it confirmed-by-user or handed-off.`,
    {
      data: { rid, state, ready: PRD_READY },
      nextActions: [
        peaksCommand(session, ["request", "transition", rid, "--role", "prd", "--state", target]),
      ],
      instructions: [
        state === "blocked"
          ? `The PRD is blocked (${
            prd.meta.blockedReason ?? "no reason given"
          }): resolve it with the user, move it back to ${target}, and confirm it before planning.`
          : "Confirm the PRD with the user first (the transition runs its lint and prerequisite gates), then plan again.",
      ],
    },
  );
}

export interface ModeChoice {
  mode: PresenceMode;
  source: SwarmPlan["modeSource"];
  presence: Presence | undefined;
  callerId: string | undefined;
}

/** --mode, else the caller's presence, else the swarmMode preference, else assisted (ask the user). */
export async function resolveMode(
  ctx: Ctx,
  session: SessionContext,
  flag: PresenceMode | undefined,
  warnings: Warning[],
): Promise<ModeChoice> {
  const callerId = await callerIdFromEnv(ctx.env);
  let presence: Presence | undefined;
  try {
    presence = (await readPresence(session.project, session.sessionId, callerId)).presence;
  } catch (error) {
    soft(warnings, error, "PRESENCE_UNREADABLE");
  }
  if (flag) return { mode: flag, source: "flag", presence, callerId };
  if (presence?.mode) return { mode: presence.mode, source: "presence", presence, callerId };
  try {
    const preferences = await readPreferences(session.project);
    if (preferences.swarmMode) {
      return { mode: preferences.swarmMode, source: "preference", presence, callerId };
    }
  } catch (error) {
    soft(warnings, error, "PREFERENCES_UNREADABLE");
  }
  return { mode: "assisted", source: "default", presence, callerId };
}

export interface FrontendOnly {
  value: boolean;
  source: SwarmPlan["frontendOnlySource"];
}

/** frontendOnly from `scan archetype`'s JSON; false when it is absent or broken (and said so). */
export async function scanFrontendOnly(
  session: SessionContext,
  warnings: Warning[],
): Promise<FrontendOnly> {
  try {
    const scan = await readScanResult(session.project);
    return scan ? { value: scan.frontendOnly, source: "scan" } : { value: false, source: "absent" };
  } catch (error) {
    soft(warnings, error, "SCAN_UNREADABLE");
    return { value: false, source: "unreadable" };
  }
}
