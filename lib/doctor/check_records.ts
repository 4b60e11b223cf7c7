/**
 * Dispatch records in every session: open records nobody beats any more
 * (stale, never-started) and files that no longer read back. Sessions are
 * read newest first, up to MAX_RECORD_FILES records in all.
 */
import { effectiveStatus } from "../record/liveness.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { readRecords, recordFileNames, recordSessions } from "../record/record.ts";
import { isTerminal } from "../state/record.ts";
import { initCommand } from "../session/session.ts";
import { type Check, type CheckOutcome, somePaths } from "./model.ts";
import { exists } from "../infra/fs/files.ts";
import { peaksLine } from "../infra/shell.ts";

export const MAX_RECORD_FILES = 5000;

function staleFix(project: Project, sid: string): string {
  return peaksLine(project.root, [
    "sub-agent",
    "finalize",
    "--all-stale",
    "--outcome",
    "failed",
    "--session-id",
    sid,
  ]);
}

/** Stale records stopped beating; never-started ones never began, so they did not stop. */
function stuckTitle(sid: string, statuses: string[]): string {
  const stale = statuses.filter((s) => s === "stale").length;
  const never = statuses.length - stale;
  const parts = [
    ...(stale ? [`${stale} stopped beating`] : []),
    ...(never ? [`${never} never started`] : []),
  ];
  return `Sub-agent records of session ${sid}: ${parts.join(", ")}`;
}

export const recordsCheck: Check = {
  name: "records",
  async run({ project, now, workspace }) {
    if (!workspace) return { skipped: "no workspace", summary: "", findings: [] };
    const outcome: CheckOutcome = { summary: "", findings: [] };
    let read = 0;
    const open = { beating: 0, queued: 0 };
    let partial = false;
    for (const sid of (await recordSessions(project)).reverse()) {
      const names = await recordFileNames(project, sid);
      if (read + names.length > MAX_RECORD_FILES) {
        partial = true;
        break;
      }
      read += names.length;
      const listing = await readRecords(names.map((n) => project.layout.dispatchRecord(sid, n)));
      const stuck = listing.records.filter(({ record }) => {
        const status = effectiveStatus(record, now);
        if (status !== "stale" && status !== "never-started") {
          // Queued: dispatched, no first beat yet, still within its start window.
          if (status === "queued") open.queued++;
          else if (!isTerminal(status)) open.beating++;
          return false;
        }
        return true;
      });
      if (stuck.length) {
        // finalize resolves the session first; without its metadata it cannot run.
        const sessionExists = await exists(project.layout.sessionMeta(sid));
        outcome.findings.push({
          id: "records.stale",
          severity: "warning",
          title: stuckTitle(sid, stuck.map((e) => effectiveStatus(e.record, now))),
          detail:
            `Stale (no heartbeat within the stale window) or never-started (no first beat within 60 s) records keep the batch open and the status line red. Finalizing marks them failed; nothing is signalled or killed.${
              sessionExists
                ? ""
                : ` The session's metadata is gone: run ${
                  initCommand(project)
                } --session-id ${sid} first, then ${staleFix(project, sid)}.`
            }`,
          fix: sessionExists ? staleFix(project, sid) : null,
          paths: somePaths(stuck.map((e) => displayPath(project.root, e.path))),
        });
      }
      for (const broken of listing.unreadable) {
        outcome.findings.push({
          id: "records.unreadable",
          severity: "error",
          title: `A dispatch record of session ${sid} is unreadable`,
          detail: broken.error.message,
          fix: broken.error.nextActions[0] ?? null,
          paths: [displayPath(project.root, broken.path)],
        });
      }
    }
    outcome.summary =
      `${read} record(s) read, ${open.beating} open and beating, ${open.queued} queued / not started${
        partial ? ` (stopped at ${MAX_RECORD_FILES} records; older sessions not read)` : ""
      }`;
    return outcome;
  },
};
