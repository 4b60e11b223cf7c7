/**
 * Detached runs on disk. Each detached dispatch record has its own folder,
 * `.peaks/_runtime/<sid>/detached/<rid>/<run>/` with `<run>` the record's
 * file name without `dispatch-<rid>-` and `.json` (swarm siblings share a
 * rid, so they never share a folder). The supervisor holds an OS lock on
 * `pid` for its whole life: "is it alive" is a lock probe, which works under
 * scoped permissions on every OS and is never fooled by a reused pid.
 */
import { z } from "../infra/zod.ts";
import { isNotFound } from "../infra/errors.ts";
import { isoTime, isValidId } from "../infra/ids.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { OUTCOMES } from "../state/record.ts";
import { type FailedOpen, failOpenRecord } from "../record/terminal.ts";
import { join } from "../infra/std.ts";
import { readValidated } from "../infra/fs/json.ts";
import {
  exists,
  listDir,
  readBoundedText,
  removePath,
  writeJsonAtomic,
} from "../infra/fs/files.ts";
import { sleep } from "../infra/timer.ts";
import { confineState } from "../infra/fs/confine.ts";
import { MODEL_NAME, SUB_AGENT_EFFORTS, VENDOR_PERMISSIONS } from "../state/preferences.ts";

export const RUN_FILES = {
  pid: "pid",
  owner: "owner-session",
  status: "status.json",
  log: "log.txt",
  exit: "exit.json",
  stop: "stop",
  compact: "compact",
} as const;

/** The record a run folder belongs to: `dispatch-<rid>-<run>.json` of its session. */
export function recordPathOf(
  project: Project,
  run: { sessionId: string; requestId: string; run: string },
): string {
  return project.layout.dispatchRecord(run.sessionId, `dispatch-${run.requestId}-${run.run}.json`);
}

/** The supervisor's pid as written in its pid file, when readable. */
export async function readPidFile(pidPath: string): Promise<number | null> {
  const text = await readBoundedText(pidPath, { maxBytes: 64 }).catch(() => "") ?? "";
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

export function runFile(dir: string, name: keyof typeof RUN_FILES): string {
  return join(dir, RUN_FILES[name]);
}

const iso = z.string().min(1);

/** What dispatch stores in `record.detached` for the supervisor. */
export const DetachedInfoSchema = z.looseObject({
  runDir: z.string().min(1),
  vendor: z.string().min(1),
  requestedVendor: z.string().nullable(),
  input: z.enum(["stdin", "argv"]),
  timeoutMs: z.number().int().min(1),
  owner: z.object({ sessionId: z.string(), callerId: z.string().nullable() }),
  /** The vendor's permission posture; records written before it existed ran as `role`. */
  permissions: z.enum(VENDOR_PERMISSIONS).optional(),
  /** The role's model and effort, passed as the vendor's flags (never a word starting with `-`). */
  model: z.string().max(128).regex(MODEL_NAME).optional(),
  effort: z.enum(SUB_AGENT_EFFORTS).optional(),
});
export type DetachedInfo = z.infer<typeof DetachedInfoSchema>;

export const RUN_STATES = ["starting", "running", "stopping", "exited", "lost"] as const;

export const RunStatusSchema = z.looseObject({
  version: z.literal(1),
  state: z.enum(RUN_STATES),
  recordPath: z.string(),
  vendor: z.string(),
  supervisorPid: z.number().int(),
  childPid: z.number().int().nullable(),
  startedAt: iso,
  updatedAt: iso,
  lastOutputAt: iso.nullable(),
  outputBytes: z.number().int().min(0),
  timeoutMs: z.number().int(),
  deadlineAt: iso,
  stopReason: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  outcome: z.enum(OUTCOMES).nullable(),
  endedAt: iso.nullable(),
});
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const RunExitSchema = z.looseObject({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  outcome: z.enum(OUTCOMES),
  endedAt: iso,
  /** exit, timeout, cancelled, signal, spawn-failed, refused, supervisor-lost. */
  reason: z.string(),
  error: z.string().nullable(),
});
export type RunExit = z.infer<typeof RunExitSchema>;

export const RunOwnerSchema = z.looseObject({
  sessionId: z.string(),
  callerId: z.string().nullable(),
  supervisorPid: z.number().int(),
  recordPath: z.string(),
  startedAt: iso,
});
export type RunOwner = z.infer<typeof RunOwnerSchema>;

export function readRunStatus(dir: string): Promise<RunStatus | undefined> {
  return readValidated(runFile(dir, "status"), RunStatusSchema, { what: "detached status" });
}

export function readRunExit(dir: string): Promise<RunExit | undefined> {
  return readValidated(runFile(dir, "exit"), RunExitSchema, { what: "detached exit file" });
}

export function readRunOwner(dir: string): Promise<RunOwner | undefined> {
  return readValidated(runFile(dir, "owner"), RunOwnerSchema, { what: "detached owner file" });
}

export type Lease = "alive" | "dead" | "absent";

/** Alive while the supervisor holds its lock on `pid`; dead when the file is left unlocked. */
export async function probeLease(pidPath: string): Promise<Lease> {
  await confineState(pidPath);
  // Only a regular file is a lease: a FIFO or a link in its place is never opened.
  const kind = await Deno.lstat(pidPath).then((i) => i.isFile ? "file" : "other", (error) => {
    if (isNotFound(error)) return "absent" as const;
    throw error;
  });
  if (kind !== "file") return kind === "absent" ? "absent" : "dead";
  let file: Deno.FsFile;
  try {
    file = await Deno.open(pidPath, { read: true, write: true });
  } catch (error) {
    if (isNotFound(error)) return "absent";
    throw error;
  }
  try {
    if (!(await file.tryLock(true))) return "alive";
    await file.unlock();
    return "dead";
  } finally {
    file.close();
  }
}

export interface RunEntry {
  sessionId: string;
  requestId: string;
  run: string;
  dir: string;
  pidPath: string;
  lease: Lease;
}

async function subdirs(dir: string): Promise<string[]> {
  const entries = await listDir(dir);
  return entries.filter((e) => e.isDirectory && isValidId(e.name)).map((e) => e.name).sort();
}

/** Runs that still have a pid file (a supervisor alive, or one that died without cleaning up). */
export async function listRuns(project: Project, sessionId?: string): Promise<RunEntry[]> {
  const sids = sessionId === undefined ? await subdirs(project.layout.runtime) : [sessionId];
  const found: RunEntry[] = [];
  for (const sid of sids) {
    const base = join(project.layout.sessionDir(sid), "detached");
    for (const rid of await subdirs(base)) {
      for (const run of await subdirs(join(base, rid))) {
        const dir = project.layout.detachedRunDir(sid, rid, run);
        const pidPath = runFile(dir, "pid");
        const lease = await probeLease(pidPath);
        if (lease !== "absent") {
          found.push({ sessionId: sid, requestId: rid, run, dir, pidPath, lease });
        }
      }
    }
  }
  return found;
}

export interface Reconciled {
  runDir: string;
  recordPath: string;
  /** The vendor's pid as last seen; its process group is the supervisor's pid. */
  childPid: number | null;
  supervisorPid: number | null;
  recordMarked: boolean;
}

/**
 * Closes the books on a run whose supervisor died without cleaning up (killed
 * with SIGKILL, out of memory): exit.json when missing, the record failed
 * when still open, then owner-session and pid removed. Safe to run twice.
 */
export async function reconcileRun(
  project: Project,
  entry: RunEntry,
  now: Date,
): Promise<Reconciled> {
  const at = isoTime(now);
  const [owner, status, pid] = await Promise.all([
    readRunOwner(entry.dir).catch(() => undefined),
    readRunStatus(entry.dir).catch(() => undefined),
    readPidFile(entry.pidPath),
  ]);
  // The record is found from the folder's own name, so even a supervisor killed before it
  // wrote owner-session is closed; nothing the run files say can point elsewhere.
  const recordPath = recordPathOf(project, entry);
  const error = "the detached supervisor ended without recording an outcome (killed or crashed)";
  let recordMarked = false;
  // A record that already ended (finalized, or the sub-agent's own last beat) keeps its outcome.
  let outcome: RunExit["outcome"] = "failed";
  if (await exists(recordPath)) {
    const failed = await failOpenRecord(recordPath, error, at)
      .catch((): FailedOpen => ({ marked: false }));
    recordMarked = failed.marked;
    outcome = failed.outcome ?? outcome;
  }
  const exit = await readRunExit(entry.dir).catch(() => undefined);
  if (!exit) {
    await writeJsonAtomic(
      runFile(entry.dir, "exit"),
      {
        exitCode: null,
        signal: null,
        outcome,
        endedAt: at,
        reason: "supervisor-lost",
        error,
      } satisfies RunExit,
    );
  }
  if (status) {
    await writeJsonAtomic(runFile(entry.dir, "status"), {
      ...status,
      state: "lost",
      updatedAt: at,
      outcome: status.outcome ?? outcome,
      endedAt: status.endedAt ?? at,
    });
  }
  await removePath(runFile(entry.dir, "owner"));
  await removePath(entry.pidPath);
  return {
    runDir: displayPath(project.root, entry.dir),
    recordPath: displayPath(project.root, recordPath),
    childPid: status?.childPid ?? null,
    supervisorPid: owner?.supervisorPid ?? status?.supervisorPid ?? pid,
    recordMarked,
  };
}

export interface LiveCount {
  live: RunEntry[];
  reconciled: Reconciled[];
}

/** Live detached sub-agents in the project; dead pid files are reconciled on the way. */
export async function countLive(project: Project, now: Date): Promise<LiveCount> {
  const runs = await listRuns(project);
  const live: RunEntry[] = [];
  const reconciled: Reconciled[] = [];
  for (const entry of runs) {
    if (entry.lease === "alive") live.push(entry);
    else reconciled.push(await reconcileRun(project, entry, now));
  }
  return { live, reconciled };
}

/** Asks a live supervisor to stop its vendor; it polls for this file. */
export async function requestStop(dir: string, reason: string, now: Date): Promise<void> {
  await writeJsonAtomic(runFile(dir, "stop"), { at: isoTime(now), reason });
}

/** Waits until the supervisor has released its lease; true when it did within `timeoutMs`. */
export async function waitForRelease(pidPath: string, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (true) {
    if ((await probeLease(pidPath)) !== "alive") return true;
    if (performance.now() >= deadline) return false;
    await sleep(50);
  }
}
