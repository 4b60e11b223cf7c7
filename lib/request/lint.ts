import { defineCommand } from "../core/command/spec.ts";
import { lintText } from "../core/request/lint.ts";
import { BLOCKED, nextState } from "./_graph.ts";
import { loadRequest, openRequestSession, RID_ARG, roleFlag, sessionFlag } from "./_load.ts";
import { peaksCommand } from "../core/session/session.ts";

export default defineCommand({
  name: "request lint",
  description:
    "Lints a request: every <placeholder> token and every bullet that is only '...' is an error (with its line " +
    "number), TBD/TODO/FIXME are warnings. Code spans, fenced code, HTML comments, autolinks and common HTML " +
    "tags are not placeholders. The same lint gates every forward transition.",
  args: [RID_ARG],
  flags: { role: roleFlag(), "session-id": sessionFlag() },
  examples: ["peaks request lint 001-login --role prd --json"],
  exitNotes: ["3  the request has lint errors (data.errors lists each line)"],
  async run({ flags, args }, ctx) {
    const session = await openRequestSession(ctx, flags["session-id"]);
    const role = flags.role;
    const request = await loadRequest(session, role, args.rid!);
    const { meta } = request.doc;
    const { errors, warnings } = lintText(request.text);
    const passed = errors.length === 0;
    const next = meta.state === BLOCKED ? undefined : nextState(role, meta.state);
    const nextActions = passed && next
      ? [
        peaksCommand(session, ["request", "transition", meta.rid, "--role", role, "--state", next]),
      ]
      : [];
    const instructions = passed ? [] : [
      `Replace each listed line of ${request.shown} with real content, then lint again.`,
    ];
    return {
      data: {
        projectRoot: session.project.root,
        sessionId: session.sessionId,
        rid: meta.rid,
        role,
        state: meta.state,
        path: request.shown,
        passed,
        errorCount: errors.length,
        warningCount: warnings.length,
        errors,
        warnings,
        instructions,
      },
      nextActions,
      exitCode: passed ? 0 : 3,
      human: passed
        ? `${request.shown}: lint clean${
          warnings.length ? ` (${warnings.length} warning(s))` : ""
        }${warnings.map((w) => `\n  ${w.message}`).join("")}`
        : [
          `${request.shown}: ${errors.length} lint error(s)`,
          ...errors.map((e) => `  ${e.message}`),
        ]
          .join("\n"),
    };
  },
});
