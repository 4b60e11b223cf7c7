/**
 * Stopping a detached run from outside: `finalize --outcome cancelled` and
 * `cleanup --orphans --kill`. peaks may not signal a process it did not
 * start (that needs unscoped run permission), so it writes the run's `stop`
 * file, which the supervisor polls, and waits a bounded time for the
 * supervisor to let go of its lease. A run whose supervisor already died is
 * reconciled instead.
 */
import {
  probeLease,
  reconcileRun,
  requestStop,
  type RunEntry,
  runFile,
  waitForRelease,
} from "./runs.ts";
import { removePath } from "../infra/fs/files.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import type { DispatchRecord } from "../record/record.ts";
import { recordFileOf, runNameFor } from "../record/names.ts";

/** Long enough for SIGTERM, the kill grace period and the bounded drain of a stubborn vendor. */
export const STOP_WAIT_MS = 10_000;

export interface StopReport {
  runDir: string;
  /** stopped: the supervisor ended; stopping: still ending after the wait; reconciled: it had died. */
  state: "stopped" | "stopping" | "reconciled" | "not-running";
}

/** The run of a detached record, derived from its file name (never from its content). */
export function runOf(project: Project, recordPath: string, record: DispatchRecord): RunEntry {
  const run = runNameFor(recordFileOf(recordPath), record.requestId);
  const dir = project.layout.detachedRunDir(record.sessionId, record.requestId, run);
  return {
    sessionId: record.sessionId,
    requestId: record.requestId,
    run,
    dir,
    pidPath: runFile(dir, "pid"),
    lease: "absent",
  };
}

export async function stopRun(
  project: Project,
  run: RunEntry,
  reason: string,
  now: Date,
  waitMs = STOP_WAIT_MS,
): Promise<StopReport> {
  const runDir = displayPath(project.root, run.dir);
  const lease = await probeLease(run.pidPath);
  if (lease === "absent") return { runDir, state: "not-running" };
  if (lease === "dead") {
    await reconcileRun(project, { ...run, lease }, now);
    return { runDir, state: "reconciled" };
  }
  await requestStop(run.dir, reason, now);
  const released = await waitForRelease(run.pidPath, waitMs);
  // A supervisor whose beat saw the record cancelled may have ended before the stop file was
  // written; once the lease is released nobody reads that file, so it goes.
  if (released) await removePath(runFile(run.dir, "stop")).catch(() => {});
  return { runDir, state: released ? "stopped" : "stopping" };
}
