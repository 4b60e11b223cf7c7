/** What every request command shares: its flags, the session, reading one request. */
import { flag } from "../infra/command/flag.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError } from "../infra/errors.ts";
import { assertId } from "../infra/ids.ts";
import { displayPath } from "../workspace/paths.ts";
import {
  parseRequest,
  readRequestText,
  REQUEST_ROLES,
  type RequestDocument,
  type RequestRole,
} from "./file.ts";
import { openSession, peaksCommand, type SessionContext } from "../session/session.ts";
import { unreadable } from "../infra/fs/json.ts";
import { isRoleState, roleStates } from "./graph.ts";

export const roleFlag = () =>
  flag.enum(REQUEST_ROLES, "The request's role.", { required: true as const });

export const sessionFlag = () =>
  flag.string("Session to use instead of the active one.", { placeholder: "<sid>", max: 128 });

export const RID_ARG = { name: "rid", description: "The request id.", required: true };

export async function openRequestSession(ctx: Ctx, explicit?: string): Promise<SessionContext> {
  if (explicit !== undefined) assertId(explicit, "--session-id");
  return await openSession(ctx, explicit);
}

export interface LoadedRequest {
  path: string;
  /** Project-relative path, for envelopes. */
  shown: string;
  text: string;
  doc: RequestDocument;
}

export function initCommandFor(session: SessionContext, role: RequestRole, rid: string): string {
  return peaksCommand(session, ["request", "init", "--role", role, "--id", rid]);
}

/** Parses a request and checks that it is what its path says and that its state exists. */
export async function checkRequest(
  path: string,
  text: string,
  role: RequestRole,
  rid: string,
): Promise<RequestDocument> {
  const doc = await parseRequest(path, text);
  const { meta } = doc;
  const broken = (reason: string) => unreadable(path, { what: "request" }, reason);
  if (meta.role !== role || meta.rid !== rid) {
    throw broken(`its front matter says role ${meta.role}, rid ${meta.rid}`);
  }
  if (!isRoleState(role, meta.state)) {
    throw broken(
      `state "${meta.state}" is not a ${role} state (${roleStates(role).join(", ")})`,
    );
  }
  if (meta.blockedFrom !== undefined && !isRoleState(role, meta.blockedFrom)) {
    throw broken(`blockedFrom "${meta.blockedFrom}" is not a ${role} state`);
  }
  return doc;
}

/** Reads one request; REQUEST_NOT_FOUND (with the step that creates it) when it does not exist. */
export async function loadRequest(
  session: SessionContext,
  role: RequestRole,
  rawRid: string,
): Promise<LoadedRequest> {
  const rid = assertId(rawRid, "<rid>");
  const path = session.project.layout.request(session.sessionId, role, rid);
  const shown = displayPath(session.project.root, path);
  const text = await readRequestText(path);
  if (text === undefined) {
    throw new PeaksError(
      "REQUEST_NOT_FOUND",
      `There is no ${role} request ${rid} in session ${session.sessionId} (${shown}).`,
      {
        data: { rid, role, sessionId: session.sessionId, path: shown },
        nextActions: [await missingRequestStep(session, role, rid)],
      },
    );
  }
  return { path, shown, text, doc: await checkRequest(path, text, role, rid) };
}

/**
 * What to run when a request is missing. The orchestrator creates the prd and sc requests itself;
 * the ui, rd and qa requests come from the swarm's members and the txt one from TXT's sub-agent, so
 * creating them by hand would skip those steps: then the PRD's request, whose nextAction is the
 * workflow's next step, or the PRD itself when there is none yet.
 */
async function missingRequestStep(
  session: SessionContext,
  role: RequestRole,
  rid: string,
): Promise<string> {
  if (role === "prd" || role === "sc") return initCommandFor(session, role, rid);
  const prd = session.project.layout.request(session.sessionId, "prd", rid);
  if ((await readRequestText(prd)) === undefined) return initCommandFor(session, "prd", rid);
  return peaksCommand(session, ["request", "show", rid, "--role", "prd"]);
}
