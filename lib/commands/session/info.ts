import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { resolveProject } from "../../workspace/project.ts";
import { usageError } from "../../infra/errors.ts";
import { assertId } from "../../infra/ids.ts";
import { displayPath } from "../../workspace/paths.ts";
import { readBinding, readSessionMeta, resolveSession } from "../../session/session.ts";
import { PeaksError } from "../../infra/errors.ts";
import { peaksLine } from "../../infra/shell.ts";
import { safeField } from "../../infra/terminal_text.ts";

export default defineCommand({
  name: "session info",
  description:
    "Shows one session: the active one (--active, also the default) resolved as --session-id > PEAKS_SESSION_ID > the workspace binding, or the one named by <sid>. " +
    "data.hasTitle tells whether a title is already set.",
  args: [{ name: "sid", description: "A session id; omit it with --active." }],
  flags: {
    active: flag.boolean("Show the active session."),
    "session-id": flag.string("Session to treat as active (overrides PEAKS_SESSION_ID).", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks session info --active --json",
    "peaks session info 2026-11-29-session-a1b2c3 --json",
  ],
  async run({ flags, args }, ctx) {
    if (args.sid !== undefined && (flags.active || flags["session-id"] !== undefined)) {
      throw usageError(
        "CONFLICTING_FLAGS",
        "Give either <sid> or --active/--session-id, not both.",
        { data: { flags: ["active", "session-id"] } },
      );
    }
    const project = await resolveProject(ctx);
    let sessionId: string;
    let source: string;
    if (args.sid !== undefined) {
      sessionId = assertId(args.sid, "<sid>");
      source = "argument";
    } else {
      const resolved = await resolveSession(ctx, project, flags["session-id"]);
      sessionId = resolved.sessionId;
      source = resolved.source;
    }
    const meta = await readSessionMeta(project, sessionId);
    if (!meta) {
      throw new PeaksError(
        "SESSION_NOT_FOUND",
        `Session ${sessionId} does not exist in ${project.root}.`,
        {
          data: { sessionId, projectRoot: project.root },
          nextActions: [peaksLine(project.root, ["session", "list"])],
        },
      );
    }
    const binding = await readBinding(project).catch(() => undefined);
    const data = {
      projectRoot: project.root,
      sessionId,
      source,
      active: binding?.sessionId === sessionId,
      createdAt: meta.createdAt,
      lastActivity: meta.lastActivity,
      title: meta.title ?? null,
      hasTitle: Boolean(meta.title),
      sessionDir: displayPath(project.root, project.layout.sessionDir(sessionId)),
    };
    return {
      data,
      human: [
        `session ${sessionId}${data.active ? " (active)" : ""}`,
        `title: ${data.title === null ? "(none)" : safeField(data.title)}`,
        `created: ${data.createdAt}  last activity: ${data.lastActivity}`,
        `dir: ${data.sessionDir}`,
      ].join("\n"),
    };
  },
});
