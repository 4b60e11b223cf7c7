/**
 * Orphan detached runs: a supervisor that is gone (its pid file left
 * unlocked) or a run whose session no longer exists. Listing only reads;
 * `sub-agent cleanup --orphans --kill` decides what to do with them and
 * `doctor` reports them.
 */
import {
  listRuns,
  readPidFile,
  readRunOwner,
  readRunStatus,
  recordPathOf,
  type RunEntry,
} from "./runs.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { exists } from "../infra/fs/files.ts";

export interface OrphanRow {
  runDir: string;
  recordPath: string;
  sessionId: string;
  requestId: string;
  reason: "supervisor-gone" | "session-gone";
  supervisorPid: number | null;
  vendorPid: number | null;
  action: "listed" | "stopped" | "stopping" | "reconciled";
}

export interface Orphan {
  entry: RunEntry;
  row: OrphanRow;
}

/** Every orphan run of the project (or of one session), as `listed` rows; changes nothing. */
export async function listOrphans(project: Project, session?: string): Promise<Orphan[]> {
  const found: Orphan[] = [];
  for (const entry of await listRuns(project, session)) {
    const [owner, status, pid] = await Promise.all([
      readRunOwner(entry.dir).catch(() => undefined),
      readRunStatus(entry.dir).catch(() => undefined),
      readPidFile(entry.pidPath),
    ]);
    const sid = owner?.sessionId ?? entry.sessionId;
    const sessionGone = !(await exists(project.layout.sessionMeta(sid)));
    const reason = entry.lease === "dead" ? "supervisor-gone" : sessionGone ? "session-gone" : null;
    if (!reason) continue;
    found.push({
      entry,
      row: {
        runDir: displayPath(project.root, entry.dir),
        recordPath: displayPath(project.root, recordPathOf(project, entry)),
        sessionId: sid,
        requestId: entry.requestId,
        reason,
        supervisorPid: owner?.supervisorPid ?? status?.supervisorPid ?? pid,
        vendorPid: status?.childPid ?? null,
        action: "listed",
      },
    });
  }
  return found;
}

/**
 * peaks cannot signal a process it did not start, so for each run whose
 * supervisor died this says how to find and stop its vendor by hand.
 */
export function lostVendorInstructions(rows: OrphanRow[]): string[] {
  return rows.filter((r) => r.reason === "supervisor-gone" && r.supervisorPid !== null).map((r) =>
    `The supervisor of ${r.runDir} is gone and peaks cannot signal a process it did not start; its vendor (pid ${r.vendorPid}) may still run in process group ${r.supervisorPid}. Check with \`pgrep -l -g ${r.supervisorPid}\` and stop it with \`kill -TERM -- -${r.supervisorPid}\`.`
  );
}
