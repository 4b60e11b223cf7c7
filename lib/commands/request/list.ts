import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { REQUEST_ROLES } from "../../request/file.ts";
import { openRequestSession, sessionFlag } from "../../request/load.ts";
import { listRequests } from "../../request/list.ts";

export default defineCommand({
  name: "request list",
  description:
    "Lists the session's requests across roles (rid, role, type, state, verdict), grouped by request id in role " +
    "order. An unreadable request file is reported as a warning and does not hide the others.",
  flags: {
    role: flag.enum(REQUEST_ROLES, "Only this role."),
    state: flag.string("Only requests in this state.", { placeholder: "<state>", max: 64 }),
    limit: flag.int("Show at most this many requests.", { min: 1, max: 10_000, default: 200 }),
    "session-id": sessionFlag(),
  },
  examples: ["peaks request list --json", "peaks request list --role prd --json"],
  async run({ flags }, ctx) {
    const session = await openRequestSession(ctx, flags["session-id"]);
    const { project, sessionId } = session;
    const roles = flags.role ? [flags.role] : REQUEST_ROLES;
    const { rows, warnings } = await listRequests(project, sessionId, roles);
    const matching = flags.state ? rows.filter((row) => row.state === flags.state) : rows;
    const shown = matching.slice(0, flags.limit);
    return {
      data: {
        projectRoot: project.root,
        sessionId,
        total: matching.length,
        truncated: shown.length < matching.length,
        requests: shown,
      },
      warnings,
      human: shown.length
        ? shown.map((r) =>
          `${r.rid}  ${r.role.padEnd(3)}  ${r.type.padEnd(8)}  ${r.state}${
            r.verdict ? ` (${r.verdict})` : ""
          }`
        ).join("\n")
        : `no requests in session ${sessionId}`,
    };
  },
});
