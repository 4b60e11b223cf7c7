import { defineCommand } from "../../infra/command/spec.ts";
import { lintText } from "../../request/linter.ts";
import {
  loadRequest,
  openRequestSession,
  RID_ARG,
  roleFlag,
  sessionFlag,
} from "../../request/load.ts";
import { nextStep, stepActions, stepData } from "../../workflow/next.ts";

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
    // Clean: the workflow's next step, which is nobody's while a sub-agent still works on it.
    const following = passed ? await nextStep(session, meta.rid) : undefined;
    return {
      data: {
        rid: meta.rid,
        role,
        state: meta.state,
        path: request.shown,
        passed,
        ...(passed ? {} : {
          errorCount: errors.length,
          errors,
          instructions: [
            `Replace each listed line of ${request.shown} with real content, then lint again.`,
          ],
        }),
        ...(warnings.length ? { warningCount: warnings.length, warnings } : {}),
        ...(following ? stepData(following) : {}),
      },
      nextActions: following ? stepActions(following) : [],
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
