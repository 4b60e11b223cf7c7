import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { openSession } from "../../session/session.ts";
import { readContextReading, readPresence } from "../../presence/presence.ts";
import { callerIdFromEnv, presenceHeader, presenceView } from "../../presence/caller.ts";
import { displayPath } from "../../workspace/paths.ts";

export default defineCommand({
  name: "skill presence",
  description:
    "Shows the active skill, mode, gate, role, when they were set, and the last context-window reading " +
    "(action: ok < 50%, soft-warn >= 50%, pre-compact >= 85%, red-line >= 95%, unknown without a reading). " +
    "--header prints the one-line header the skills show on every turn; --next adds its `Next: <action>` " +
    "segment (the orchestrator's next step as presence:set --next recorded it, `-` when none).",
  flags: {
    header: flag.boolean("Print only the one-line status header."),
    next: flag.boolean("End the header with `Next: <action>`."),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks skill presence --json",
    "peaks skill presence --header",
    "peaks skill presence --header --next",
  ],
  async run({ flags }, ctx) {
    const { project, sessionId } = await openSession(ctx, flags["session-id"]);
    const callerId = await callerIdFromEnv(ctx.env);
    const [{ presence, path }, reading] = await Promise.all([
      readPresence(project, sessionId, callerId),
      readContextReading(project, sessionId),
    ]);
    const view = presenceView(presence, reading);
    const header = presenceHeader(view, { next: flags.next });
    return {
      data: {
        projectRoot: project.root,
        sessionId,
        callerId: callerId ?? null,
        path: presence ? displayPath(project.root, path) : null,
        ...view,
        header,
      },
      human: flags.header ? header : [
        header,
        `mode: ${view.mode ?? "-"}  set: ${view.setAt ?? "-"}  updated: ${view.updatedAt ?? "-"}`,
      ].join("\n"),
    };
  },
});
