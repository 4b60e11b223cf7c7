import { isNotFound, PeaksError } from "../infra/errors.ts";
import { isoTime, isValidId, printable } from "../infra/ids.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { type Project, resolveProject } from "../workspace/project.ts";
import { readValidated, updateJson } from "../infra/fs/json.ts";
import { commandLine, peaksLine } from "../infra/shell.ts";
import { loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { SESSION_BINDING_SHAPE, SESSION_META_SHAPE } from "../state/shapes.ts";
import type { SessionBinding, SessionMeta } from "../state/session.ts";

export type { SessionBinding, SessionMeta } from "../state/session.ts";

/** The binding and meta files, checked by their shapes (zod only for what a shape doubts). */
export const SessionBindingFile = stateSchema<SessionBinding>(
  SESSION_BINDING_SHAPE,
  () =>
    import("../state/session.ts").then((m) => loadSchemas(m.sessionSchemas)).then((s) =>
      s.SessionBindingSchema
    ),
);
export const SessionMetaFile = stateSchema<SessionMeta>(
  SESSION_META_SHAPE,
  () =>
    import("../state/session.ts").then((m) => loadSchemas(m.sessionSchemas)).then((s) =>
      s.SessionMetaSchema
    ),
);

export interface ResolvedSession {
  sessionId: string;
  source: "flag" | "env" | "binding";
}

export function initCommand(project: Project): string {
  return peaksLine(project.root, ["workspace", "init"]);
}

/** The repair of a broken binding file: keep its bytes under another name. */
export function bindingRepair(project: Project): string {
  const path = project.layout.sessionBinding;
  return commandLine(["mv", path, `${path}.corrupt`]);
}

export function readSessionMeta(project: Project, sid: string): Promise<SessionMeta | undefined> {
  return readValidated(project.layout.sessionMeta(sid), SessionMetaFile, {
    what: "session metadata",
    // init moves a broken metadata file aside (its bytes kept) and writes a fresh one.
    repair: [peaksLine(project.root, ["workspace", "init", "--session-id", sid])],
  });
}

export function readBinding(project: Project): Promise<SessionBinding | undefined> {
  return readValidated(project.layout.sessionBinding, SessionBindingFile, {
    what: "session binding",
    // Moved aside, not deleted: workspace init then binds a fresh session beside the kept bytes.
    repair: [bindingRepair(project)],
  });
}

/**
 * The session a command works in: `--session-id` > PEAKS_SESSION_ID > the
 * project's binding. The session must exist; nothing is made up.
 */
export async function resolveSession(
  ctx: Ctx,
  project: Project,
  explicit?: string,
): Promise<ResolvedSession> {
  let sessionId: string | undefined;
  let source: ResolvedSession["source"];
  if (explicit !== undefined) {
    sessionId = explicit;
    source = "flag";
  } else if (ctx.env.get("PEAKS_SESSION_ID")) {
    sessionId = ctx.env.get("PEAKS_SESSION_ID");
    source = "env";
  } else {
    const binding = await readBinding(project);
    sessionId = binding?.sessionId;
    source = "binding";
  }
  if (!sessionId) {
    throw new PeaksError(
      "NO_ACTIVE_SESSION",
      `No active peaks session in ${project.root}: run workspace init first.`,
      { data: { projectRoot: project.root }, nextActions: [initCommand(project)] },
    );
  }
  const origin = source === "flag"
    ? "--session-id"
    : source === "env"
    ? "PEAKS_SESSION_ID"
    : project.layout.sessionBinding;
  if (!isValidId(sessionId)) {
    throw new PeaksError(
      "INVALID_IDENTIFIER",
      `The session id ${
        JSON.stringify(printable(sessionId))
      } from ${origin} is not a valid identifier.`,
      { exit: source === "flag" ? 2 : 1, data: { source }, nextActions: [initCommand(project)] },
    );
  }
  try {
    Deno.statSync(project.layout.sessionMeta(sessionId));
  } catch (error) {
    if (!isNotFound(error)) throw error;
    throw new PeaksError(
      "SESSION_NOT_FOUND",
      `Session ${sessionId} (from ${origin}) does not exist in ${project.root}.`,
      {
        data: { sessionId, source, projectRoot: project.root },
        nextActions: [`${initCommand(project)} --session-id ${sessionId}`],
      },
    );
  }
  return { sessionId, source };
}

const TOUCH_EVERY_MS = 60_000;

/** Records activity on a session, at most once a minute to keep hot paths cheap. */
export async function touchSession(project: Project, sid: string, now: Date): Promise<void> {
  const path = project.layout.sessionMeta(sid);
  const current = await readValidated(path, SessionMetaFile, { what: "session metadata" });
  if (current && now.getTime() - Date.parse(current.lastActivity) < TOUCH_EVERY_MS) return;
  await updateJson(path, SessionMetaFile, { what: "session metadata" }, (meta) => {
    if (!meta) return { result: undefined };
    return { value: { ...meta, lastActivity: isoTime(now) }, result: undefined };
  });
}

export interface SessionContext {
  project: Project;
  sessionId: string;
  sessionSource: ResolvedSession["source"];
}

/**
 * A `peaks ...` command line for nextActions: the words, then the session when
 * it did not come from the workspace binding, then `--project`.
 */
export function peaksCommand(session: SessionContext, words: readonly string[]): string {
  const sid = session.sessionSource === "binding" ? [] : ["--session-id", session.sessionId];
  return peaksLine(session.project.root, [...words, ...sid]);
}

/** The usual opening of a command: the project, then its session. */
export async function openSession(ctx: Ctx, explicit?: string): Promise<SessionContext> {
  const project = await resolveProject(ctx);
  const { sessionId, source } = await resolveSession(ctx, project, explicit);
  return { project, sessionId, sessionSource: source };
}
