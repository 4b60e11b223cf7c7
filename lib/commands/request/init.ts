import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { createFileExclusive } from "../../infra/fs/files.ts";
import { assertId, isoTime } from "../../infra/ids.ts";
import { displayPath } from "../../workspace/paths.ts";
import {
  readRequest,
  readRequestText,
  renderRequest,
  REQUEST_TYPES,
  type RequestMeta,
  type RequestRole,
  type RequestType,
} from "../../request/file.ts";
import { peaksCommand, type SessionContext, touchSession } from "../../session/session.ts";
import type { Warning } from "../../infra/errors.ts";
import { INITIAL_STATE } from "../../request/graph.ts";
import { appendHistory } from "../../request/history.ts";
import { placeholdersOf } from "../../request/linter.ts";
import { dirtyTreeWarning } from "../../request/close.ts";
import { checkRequest, openRequestSession, roleFlag, sessionFlag } from "../../request/load.ts";
import { renderTemplate } from "../../request/templates.ts";
import { followPhase, PHASES } from "../../workflow/follow.ts";

export default defineCommand({
  name: "request init",
  description:
    "Creates a role request from its template in the session's <role>/requests/<rid>.md. Without --apply it " +
    "only previews the file and lists its <placeholder> tokens (data.placeholders, with line numbers); the " +
    "skill must replace every one before the request can move. An existing request is never overwritten: " +
    "--apply on it reports already-exists. Without --type a non-PRD request takes the type of the PRD " +
    "request with the same id, else feature.",
  flags: {
    role: roleFlag(),
    id: flag.string("The request id (also the file name).", {
      placeholder: "<rid>",
      required: true,
      max: 128,
    }),
    type: flag.enum(REQUEST_TYPES, "The request type (decides the gates and the swarm)."),
    apply: flag.boolean("Write the file (default: preview only)."),
    "session-id": sessionFlag(),
  },
  examples: [
    "peaks request init --role prd --id 001-login --type feature --json",
    "peaks request init --role prd --id 001-login --type feature --apply --json",
    "peaks request init --role rd --id 001-login --apply --json",
  ],
  async run({ flags }, ctx) {
    const rid = assertId(flags.id, "--id");
    const role = flags.role;
    const session = await openRequestSession(ctx, flags["session-id"]);
    const { project, sessionId } = session;
    const path = project.layout.request(sessionId, role, rid);
    const shown = displayPath(project.root, path);
    const warnings: Warning[] = [];

    const type = await typeOf(session, role, rid, flags.type, warnings);
    const dirty = role === "prd" ? await dirtyTreeWarning(project.root) : undefined;
    if (dirty) warnings.push(dirty);
    const now = isoTime(ctx.now());
    const meta: RequestMeta = {
      rid,
      role,
      type,
      state: INITIAL_STATE,
      createdAt: now,
      updatedAt: now,
    };
    const body = appendHistory(renderTemplate(role, { rid, type }), `${now} created as draft`);
    const content = renderRequest(meta, body);
    const lint = peaksCommand(session, ["request", "lint", rid, "--role", role]);
    const base = { rid, role, path: shown };

    if (!flags.apply) {
      const placeholders = placeholdersOf(content);
      return {
        data: { ...base, type, state: INITIAL_STATE, status: "preview", content, placeholders },
        warnings,
        nextActions: [
          peaksCommand(session, [
            "request",
            "init",
            "--role",
            role,
            "--id",
            rid,
            "--type",
            type,
            "--apply",
          ]),
        ],
        human:
          `${content}\n(preview: ${placeholders.length} placeholder(s); add --apply to write ${shown})`,
      };
    }

    if (await createFileExclusive(path, content)) {
      await touchSession(project, sessionId, ctx.now());
      // Only the orchestrator writes the PRD: its presence enters the PRD phase.
      if (role === "prd") await followPhase(ctx.env, session, PHASES.prd, ctx.now());
      const placeholders = placeholdersOf(content);
      return {
        data: { ...base, type, state: INITIAL_STATE, status: "created", placeholders },
        warnings,
        nextActions: [lint],
        human: `created ${shown} with ${placeholders.length} placeholder(s) to replace`,
      };
    }
    const existing = await readRequestText(path) ?? "";
    const doc = await checkRequest(path, existing, role, rid);
    const placeholders = placeholdersOf(existing);
    return {
      data: {
        ...base,
        type: doc.meta.type,
        state: doc.meta.state,
        status: "already-exists",
        placeholders,
      },
      warnings,
      nextActions: [lint],
      human: `${shown} already exists (state ${doc.meta.state}); left untouched`,
    };
  },
});

/** The PRD's type for the other roles, unless --type says otherwise (with a warning). */
async function typeOf(
  session: SessionContext,
  role: RequestRole,
  rid: string,
  given: RequestType | undefined,
  warnings: Warning[],
): Promise<RequestType> {
  if (role === "prd") {
    if (!given) {
      warnings.push({
        code: "TYPE_DEFAULTED",
        message: "No --type given: the PRD request is a feature. Pass --type when it is not.",
      });
    }
    return given ?? "feature";
  }
  const prd = await readRequest(session.project, session.sessionId, "prd", rid)
    .catch(() => undefined);
  if (prd && given && given !== prd.meta.type) {
    warnings.push({
      code: "TYPE_MISMATCH",
      message:
        `--type ${given} differs from the PRD request's type ${prd.meta.type}; using ${given}.`,
    });
  }
  return given ?? prd?.meta.type ?? "feature";
}
