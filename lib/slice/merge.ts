/**
 * Merging slices back, in DAG order. A pass goes through a batch's isolated
 * records sorted by (level, position): each finalized slice's change is
 * captured as a patch, checked against the main tree as it is now (which
 * holds the slices merged before it) and applied with `git apply` (working
 * files only, never the index); then its worktree is removed. A slice whose
 * turn comes while an earlier one is not finalized yet waits, so the result
 * never depends on the order the sub-agents returned in. A patch that does
 * not apply is a conflict: nothing of it is applied, its patch and worktree
 * stay, and the record says which files and which merged slices it met.
 *
 * Every pass runs under the project's slice lock; any `creating` or
 * `merging` state it finds was left by a killed process and is finished.
 */
import { compareText } from "../infra/ids.ts";
import type { Warning } from "../infra/errors.ts";
import { PeaksError } from "../infra/errors.ts";
import { withLock } from "../infra/fs/lock.ts";
import { resolve } from "../infra/std.ts";
import type { Project } from "../workspace/project.ts";
import { listRecords } from "../record/record.ts";
import { isTerminal } from "../state/record.ts";
import type { SliceConflict, WorktreeState } from "../record/worktree.ts";
import { isSettled } from "../record/worktree.ts";
import { applyPatch } from "./_git.ts";
import { applyAtomically } from "./_apply.ts";
import {
  capture,
  dropInterrupted,
  outsideProject,
  removeCheckout,
  setWorktree,
  shownRecord,
  type SliceEntry,
  type StepContext,
} from "./_steps.ts";
import { type RepoPlace, repoPlace } from "./place.ts";

export type StepAction =
  | "merged"
  | "conflict"
  | "discarded"
  | "removed"
  | "waiting"
  | "unchanged";

export interface SliceStep {
  recordPath: string;
  node: string | null;
  role: string;
  state: WorktreeState;
  action: StepAction;
  /** The first FILES_SHOWN files; `filesTotal` counts them all (the record keeps the full list). */
  files: string[];
  filesTotal: number;
  patch: string | null;
  worktree: string | null;
  conflict: SliceConflict | null;
}

export interface PassResult {
  steps: SliceStep[];
  warnings: Warning[];
}

const LOCK_TIMEOUT_MS = 120_000;
/** Files an envelope lists per slice; the record and the patch hold them all. */
export const FILES_SHOWN = 100;

export async function requirePlace(project: Project): Promise<RepoPlace> {
  const place = await repoPlace(project);
  if (place) return place;
  throw new PeaksError(
    "WORKTREE_UNAVAILABLE",
    `Isolated slices need git and a repository around ${project.root}; none was found.`,
    { exit: 3 },
  );
}

/** Runs `fn` under the project's slice lock (creation, merges and removals never overlap). */
export function withSliceLock<T>(project: Project, fn: () => Promise<T>): Promise<T> {
  return withLock(project.layout.sliceLock, fn, { timeoutMs: LOCK_TIMEOUT_MS });
}

export function stepOf(cx: StepContext, entry: SliceEntry, action: StepAction): SliceStep {
  const wt = entry.record.worktree;
  return {
    recordPath: shownRecord(cx, entry),
    node: wt.node,
    role: entry.record.role,
    state: wt.state,
    action,
    files: wt.files.slice(0, FILES_SHOWN),
    filesTotal: wt.files.length,
    patch: wt.patch,
    worktree: wt.removedAt ? null : wt.path,
    conflict: wt.conflict
      ? { ...wt.conflict, files: wt.conflict.files.slice(0, FILES_SHOWN) }
      : null,
  };
}

/** The isolated records of a batch in DAG order (records outside a DAG come last, oldest first). */
export async function batchSlices(
  project: Project,
  sid: string,
  batchId: string,
): Promise<SliceEntry[]> {
  const listing = await listRecords(project, sid);
  const far = Number.MAX_SAFE_INTEGER;
  return listing.records
    .filter((e) => e.record.batchId === batchId && e.record.worktree)
    .map((e) => e as SliceEntry)
    .sort((a, b) => {
      const [la, pa] = a.record.worktree.order ?? [far, far];
      const [lb, pb] = b.record.worktree.order ?? [far, far];
      return la - lb || pa - pb || compareText(a.record.createdAt, b.record.createdAt);
    });
}

/**
 * One pass over a batch's slices (the caller holds the slice lock). Merges
 * wait behind an unfinalized earlier slice; removals and repairs never wait.
 */
export async function passOver(cx: StepContext, entries: SliceEntry[]): Promise<SliceStep[]> {
  const steps: SliceStep[] = [];
  let waiting = false;
  for (const start of entries) {
    const { entry, action } = await stepSlice(cx, start, entries, !waiting);
    if (action === "waiting" && entry.record.worktree.order) waiting = true;
    steps.push(stepOf(cx, entry, action));
  }
  return steps;
}

async function stepSlice(
  cx: StepContext,
  start: SliceEntry,
  all: SliceEntry[],
  mayMerge: boolean,
): Promise<{ entry: SliceEntry; action: StepAction }> {
  let entry = start;
  const wt = entry.record.worktree;
  if (isSettled(wt)) {
    if (wt.removedAt) return { entry, action: "unchanged" };
    return { entry: await removeCheckout(cx, entry), action: "removed" };
  }
  if (wt.state === "conflict") return { entry, action: "unchanged" };
  if (wt.state === "creating") {
    return { entry: await dropInterrupted(cx, entry), action: "discarded" };
  }
  if (wt.state === "ready") {
    const { status, disposed } = entry.record;
    if (!isTerminal(status)) return { entry, action: "waiting" };
    if (status !== "done") return { entry: await discardFailed(cx, entry), action: "discarded" };
    // Done but not finalized yet: the orchestrator has not looked at it.
    if (!disposed) return { entry, action: "waiting" };
    entry = await captureOrNone(cx, entry);
  }
  if (entry.record.worktree.state === "merging") return await finishMerging(cx, entry, all);
  if (entry.record.worktree.state !== "captured") return { entry, action: "unchanged" };
  if (!mayMerge) return { entry, action: "waiting" };
  return await mergeOne(cx, entry, all);
}

/** A host worktree never reported (Claude Code removes one without changes) counts as no change. */
async function captureOrNone(cx: StepContext, entry: SliceEntry): Promise<SliceEntry> {
  const wt = entry.record.worktree;
  if (wt.kind === "host" && !wt.path) {
    cx.warnings.push({
      code: "SLICE_NO_WORKTREE",
      message: `No worktree was reported for ${
        wt.node ?? entry.record.role
      }: Claude Code removes an isolated worktree that has no changes. If the notification that the agent finished named a worktreePath, finalize again with --worktree <that path>.`,
      recordPath: shownRecord(cx, entry),
    });
    return await setWorktree(cx, entry, {
      state: "captured",
      files: [],
      note: "no worktree reported",
    });
  }
  return await capture(cx, entry);
}

/** A slice whose record failed: its change is kept as a patch, never merged, and the checkout goes. */
async function discardFailed(cx: StepContext, entry: SliceEntry): Promise<SliceEntry> {
  let next = entry;
  if (entry.record.worktree.path) next = await capture(cx, entry);
  next = await setWorktree(cx, next, {
    state: "discarded",
    note: `not merged: the record ended ${entry.record.status}`,
  });
  return await removeCheckout(cx, next);
}

async function mergeOne(
  cx: StepContext,
  start: SliceEntry,
  all: SliceEntry[],
): Promise<{ entry: SliceEntry; action: StepAction }> {
  let entry = start;
  const wt = entry.record.worktree;
  const outside = outsideProject(cx, wt.files);
  if (outside.length) {
    const message = `it changes ${outside.length} file(s) outside the project folder ${
      cx.place.projectRel || "."
    }: ${outside.slice(0, 5).join(", ")}`;
    entry = await setWorktree(cx, entry, {
      state: "conflict",
      conflict: { files: outside, with: [], main: false, message },
    });
    return { entry, action: "conflict" };
  }
  if (!wt.files.length || !wt.patch) return await merged(cx, entry);
  entry = await setWorktree(cx, entry, { state: "merging" });
  const patch = resolve(cx.project.root, wt.patch);
  const check = await applyPatch(cx.place, patch, { check: true });
  if (check.ok) {
    const applied = await applyAtomically(cx.place, patch, wt.files);
    if (applied.ok) return await merged(cx, entry);
    if (applied.err) return await notWritten(cx, entry, applied.err);
  }
  return await conflicted(cx, entry, all);
}

/**
 * The patch applies but could not be written (a full disk, a path merge-back
 * refuses): a conflict that says so; every file of the main tree is as before.
 */
async function notWritten(
  cx: StepContext,
  entry: SliceEntry,
  err: string,
): Promise<{ entry: SliceEntry; action: StepAction }> {
  const wt = entry.record.worktree;
  const message = `slice ${
    wt.node ?? entry.record.role
  } could not be written to the main tree (${err}); nothing of it was applied`;
  const next = await setWorktree(cx, entry, {
    state: "conflict",
    conflict: { files: wt.files.slice(0, 100), with: [], main: true, message },
  });
  return { entry: next, action: "conflict" };
}

async function merged(
  cx: StepContext,
  entry: SliceEntry,
): Promise<{ entry: SliceEntry; action: StepAction }> {
  const done = await setWorktree(cx, entry, { state: "merged", conflict: null });
  return { entry: await removeCheckout(cx, done), action: "merged" };
}

/**
 * The files of a patch that do not apply, from one `git apply --check` (it
 * checks every file and names each one it refuses), so the cost grows with
 * the patch, not with its square. Falls back to a bounded check per file
 * when git's messages name none of them.
 */
async function refusedFiles(cx: StepContext, patch: string, all: string[]): Promise<string[]> {
  const known = new Set(all);
  const check = await applyPatch(cx.place, patch, { check: true });
  if (check.ok) return [];
  const named = new Set<string>();
  for (const line of check.err.split("\n")) {
    if (!line.startsWith("error: ")) continue;
    const text = line.slice(7);
    const special = /^patch failed: (.*):\d+$/.exec(text)?.[1] ??
      /^affected file '(.*)' is beyond a symbolic link$/.exec(text)?.[1];
    if (special !== undefined && known.has(special)) named.add(special);
    for (let at = text.indexOf(": "); at !== -1; at = text.indexOf(": ", at + 1)) {
      if (known.has(text.slice(0, at))) named.add(text.slice(0, at));
    }
  }
  if (named.size) return all.filter((f) => named.has(f));
  const files: string[] = [];
  for (const file of all.slice(0, PER_FILE_CHECKS)) {
    if (!(await applyPatch(cx.place, patch, { check: true, include: [file] })).ok) files.push(file);
  }
  return files;
}

const PER_FILE_CHECKS = 200;

/** Which files refuse, and which merged slices of the batch (or the main tree) changed them. */
async function conflicted(
  cx: StepContext,
  entry: SliceEntry,
  all: SliceEntry[],
): Promise<{ entry: SliceEntry; action: StepAction }> {
  const wt = entry.record.worktree;
  const patch = resolve(cx.project.root, wt.patch!);
  const files = await refusedFiles(cx, patch, wt.files);
  const others = all.filter((o) =>
    o.path !== entry.path && o.record.worktree.state === "merged" &&
    o.record.worktree.files.some((f) => files.includes(f))
  );
  const covered = new Set(others.flatMap((o) => o.record.worktree.files));
  const main = files.length === 0 || files.some((f) => !covered.has(f));
  const label = wt.node ?? entry.record.role;
  const against = [
    ...others.map((o) => `slice ${o.record.worktree.node ?? o.record.role}`),
    ...(main ? ["the main tree"] : []),
  ];
  const conflict: SliceConflict = {
    files,
    with: others.map((o) => ({ node: o.record.worktree.node, recordPath: shownRecord(cx, o) })),
    main,
    message: `slice ${label} overlaps ${against.join(" and ")} on ${
      files.length ? files.slice(0, 5).join(", ") : "its files"
    }`,
  };
  const next = await setWorktree(cx, entry, { state: "conflict", conflict });
  return { entry: next, action: "conflict" };
}

/**
 * A merge killed while `git apply` ran: each file of the patch is either
 * applied (its reverse applies), not applied (it applies), or changed since
 * (neither: a conflict). The files not applied yet are applied now.
 */
async function finishMerging(
  cx: StepContext,
  entry: SliceEntry,
  all: SliceEntry[],
): Promise<{ entry: SliceEntry; action: StepAction }> {
  const wt = entry.record.worktree;
  if (!wt.patch || !wt.files.length) return await merged(cx, entry);
  const patch = resolve(cx.project.root, wt.patch);
  const pending: string[] = [];
  for (const file of wt.files) {
    const applied = await applyPatch(cx.place, patch, {
      check: true,
      reverse: true,
      include: [file],
    });
    if (applied.ok) continue;
    const open = await applyPatch(cx.place, patch, { check: true, include: [file] });
    if (!open.ok) return await conflicted(cx, entry, all);
    pending.push(file);
  }
  if (pending.length && !(await applyAtomically(cx.place, patch, pending)).ok) {
    return await conflicted(cx, entry, all);
  }
  return await merged(cx, entry);
}

/** Settles one batch: under the lock, the pass in DAG order. */
export async function settleBatch(
  project: Project,
  sid: string,
  batchId: string,
  now: () => Date,
): Promise<PassResult> {
  const place = await requirePlace(project);
  const warnings: Warning[] = [];
  const steps = await withSliceLock(project, async () => {
    const entries = await batchSlices(project, sid, batchId);
    return await passOver({ project, place, now, warnings }, entries);
  });
  return { steps, warnings };
}
