import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { resolveProject } from "../../workspace/project.ts";
import { isNotFound, type Warning } from "../../infra/errors.ts";
import { compareText, isValidId } from "../../infra/ids.ts";
import { readBinding, SessionMetaFile } from "../../session/session.ts";
import { readValidated } from "../../infra/fs/json.ts";
import { listDir } from "../../infra/fs/files.ts";
import { PeaksError } from "../../infra/errors.ts";
import { safeField } from "../../infra/terminal_text.ts";

export default defineCommand({
  name: "session list",
  description: "Lists the project's sessions, newest first, with titles and which one is active.",
  flags: {
    limit: flag.int("Show at most this many sessions.", { min: 1, max: 10_000, default: 50 }),
  },
  examples: ["peaks session list --json", "peaks session list --limit 5"],
  async run({ flags }, ctx) {
    const project = await resolveProject(ctx);
    const binding = await readBinding(project).catch(() => undefined);
    const warnings: Warning[] = [];
    const rows: Array<Record<string, unknown> & { createdAt: string }> = [];
    try {
      for (const entry of await listDir(project.layout.runtime)) {
        if (!entry.isDirectory || !isValidId(entry.name)) continue;
        try {
          const meta = await readValidated(
            project.layout.sessionMeta(entry.name),
            SessionMetaFile,
            {
              what: "session metadata",
            },
          );
          if (!meta) continue;
          rows.push({
            sessionId: meta.sessionId,
            title: meta.title ?? null,
            createdAt: meta.createdAt,
            lastActivity: meta.lastActivity,
            active: binding?.sessionId === meta.sessionId,
          });
        } catch (error) {
          if (!(error instanceof PeaksError)) throw error;
          warnings.push({ code: error.code, message: error.message });
        }
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    rows.sort((a, b) => compareText(b.createdAt, a.createdAt));
    const shown = rows.slice(0, flags.limit);
    return {
      data: { projectRoot: project.root, total: rows.length, sessions: shown },
      warnings,
      human: shown.length
        ? shown.map((r) =>
          `${r.active ? "*" : " "} ${r.sessionId}  ${
            typeof r.title === "string" ? safeField(r.title) : "(untitled)"
          }`
        )
          .join("\n")
        : "no sessions (run peaks workspace init)",
    };
  },
});
