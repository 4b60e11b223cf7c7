import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { isNotFound, PeaksError, type Warning } from "../../infra/errors.ts";
import { compareText, isValidId } from "../../infra/ids.ts";
import { displayPath } from "../../workspace/paths.ts";
import { readRequestText, REQUEST_ROLES, type RequestRole } from "../../request/file.ts";
import { checkRequest, openRequestSession, sessionFlag } from "../../request/load.ts";

interface Row {
  rid: string;
  role: RequestRole;
  type: string;
  state: string;
  verdict: string | null;
  blockedFrom: string | null;
  updatedAt: string;
  path: string;
}

async function requestFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".md")) continue;
      if (isValidId(entry.name.slice(0, -3))) names.push(entry.name);
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  return names.sort();
}

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
    const roles = flags.role ? [flags.role] : [...REQUEST_ROLES];
    const rows: Row[] = [];
    const warnings: Warning[] = [];
    for (const role of roles) {
      const dir = project.layout.requestsDir(sessionId, role);
      for (const name of await requestFiles(dir)) {
        const rid = name.slice(0, -3);
        const path = project.layout.request(sessionId, role, rid);
        try {
          const text = await readRequestText(path);
          if (text === undefined) continue;
          const { meta } = await checkRequest(path, text, role, rid);
          rows.push({
            rid,
            role,
            type: meta.type,
            state: meta.state,
            verdict: meta.verdict ?? null,
            blockedFrom: meta.blockedFrom ?? null,
            updatedAt: meta.updatedAt,
            path: displayPath(project.root, path),
          });
        } catch (error) {
          if (!(error instanceof PeaksError)) throw error;
          warnings.push({ code: error.code, message: error.message, path: error.data.path });
        }
      }
    }
    const order = (role: RequestRole) => REQUEST_ROLES.indexOf(role);
    rows.sort((a, b) => compareText(a.rid, b.rid) || order(a.role) - order(b.role));
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
