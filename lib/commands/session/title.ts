import { defineCommand } from "../../infra/command/spec.ts";
import { resolveProject } from "../../workspace/project.ts";
import { assertId, isoTime, printable } from "../../infra/ids.ts";
import { isNotFound, PeaksError, usageError } from "../../infra/errors.ts";
import { SessionMetaFile } from "../../session/session.ts";
import { TITLE_MAX } from "../../state/session.ts";
import { updateJson } from "../../infra/fs/json.ts";
import { peaksLine } from "../../infra/shell.ts";

// Control characters, and the bidirectional overrides that make a title read as something else.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export default defineCommand({
  name: "session title",
  description:
    "Sets a session's title: 1-120 characters, no control characters. Words after <sid> are joined with spaces, " +
    "so an unquoted title works too. The session must exist.",
  args: [
    { name: "sid", description: "The session id.", required: true },
    { name: "title", description: "The title.", required: true, variadic: true },
  ],
  flags: {},
  examples: [
    'peaks session title 2026-11-29-session-a1b2c3 "Fix OAuth callback on the login page"',
  ],
  async run({ args }, ctx) {
    const sid = assertId(args.sid ?? "", "<sid>");
    const title = (args.title ?? "").trim().replace(/ {2,}/g, " ");
    if (title.length < 1 || [...title].length > TITLE_MAX || CONTROL.test(title)) {
      throw usageError(
        "INVALID_TITLE",
        `The title must be 1-${TITLE_MAX} characters without control or bidirectional-override characters (got ${
          JSON.stringify(printable(title, 40))
        }, ${[...title].length} characters).`,
        { data: { argument: "title", max: TITLE_MAX } },
      );
    }
    const project = await resolveProject(ctx);
    const notFound = () =>
      new PeaksError("SESSION_NOT_FOUND", `Session ${sid} does not exist in ${project.root}.`, {
        data: { sessionId: sid, projectRoot: project.root },
        nextActions: [peaksLine(project.root, ["session", "list"])],
      });
    // Checked before locking: the lock would otherwise create the session's folder.
    try {
      Deno.statSync(project.layout.sessionMeta(sid));
    } catch (error) {
      if (isNotFound(error)) throw notFound();
      throw error;
    }
    const now = isoTime(ctx.now());
    const previous = await updateJson(
      project.layout.sessionMeta(sid),
      SessionMetaFile,
      { what: "session metadata" },
      (meta) => {
        if (!meta) throw notFound();
        return { value: { ...meta, title, lastActivity: now }, result: meta.title ?? null };
      },
    );
    return {
      data: { projectRoot: project.root, sessionId: sid, title, previousTitle: previous },
      human: `session ${sid} titled "${title}"`,
    };
  },
});
