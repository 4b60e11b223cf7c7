/**
 * Every slice worktree of the project as git and the records see it, for
 * `cleanup` (which repairs) and `doctor` (which only reports): the records
 * that have one, the checkouts and git entries under this project's worktrees
 * folder that no record names (orphans), and what a killed peaks left.
 * Reading only: git is asked with optional locks off.
 */
import { join } from "../infra/std.ts";
import { isNotFound } from "../infra/errors.ts";
import { isLocked } from "../infra/fs/lock.ts";
import type { Project } from "../workspace/project.ts";
import { listRecords, recordSessions } from "../record/record.ts";
import { isSettled } from "../record/worktree.ts";
import { isTerminal } from "../state/record.ts";
import {
  diffTrees,
  listWorktrees,
  mergeBase,
  removeWorktree,
  revParse,
  sliceGit,
  workingTree,
  type WorktreeEntry,
} from "./_git.ts";
import type { SliceEntry } from "./_steps.ts";
import {
  BRANCH_PREFIX,
  type RepoPlace,
  sliceNames,
  underWorktreesRoots,
  worktreesRoots,
} from "./place.ts";
import { TMP_DIR } from "./create.ts";

export interface SessionSlice extends SliceEntry {
  sessionId: string;
}

export type LeftoverReason =
  | "settled-not-removed"
  | "creation-interrupted"
  | "merge-interrupted"
  | "record-ended";

export interface Leftover {
  entry: SessionSlice;
  reason: LeftoverReason;
}

export interface Orphan {
  /** Absolute path of the checkout (it may be gone while git still lists it). */
  path: string;
  branch: string | null;
  onDisk: boolean;
  /** Listed by `git worktree list`; locked (e.g. a creation killed inside git) or prunable. */
  listed: boolean;
  locked: boolean;
  prunable: boolean;
}

export interface Inventory {
  place: RepoPlace;
  slices: SessionSlice[];
  leftovers: Leftover[];
  /** Waiting for the orchestrator's choice (`sub-agent merge --keep … | --redo`). */
  conflicts: SessionSlice[];
  orphans: Orphan[];
  /** A creation, merge or removal holds the slice lock right now (then nothing is a leftover). */
  busy: boolean;
}

/** Every record with a worktree, in every session. */
export async function sliceRecords(project: Project): Promise<SessionSlice[]> {
  const found: SessionSlice[] = [];
  for (const sessionId of await recordSessions(project)) {
    const listing = await listRecords(project, sessionId);
    for (const e of listing.records) {
      if (e.record.worktree) found.push({ ...(e as SliceEntry), sessionId });
    }
  }
  return found;
}

/** `<root>/<rid>/<run>` folders on disk, under both roots. */
async function checkoutsOnDisk(place: RepoPlace): Promise<string[]> {
  const found: string[] = [];
  const list = async (dir: string) => {
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (entry.isDirectory && entry.name !== TMP_DIR) names.push(entry.name);
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return names;
  };
  for (const { root } of worktreesRoots(place)) {
    for (const rid of await list(root)) {
      for (const run of await list(join(root, rid))) found.push(join(root, rid, run));
    }
  }
  return found;
}

function expectedPath(place: RepoPlace, slice: SessionSlice): string | null {
  const wt = slice.record.worktree;
  if (wt.path) return wt.path;
  if (wt.kind !== "peaks") return null;
  const file = slice.path.split(/[\\/]/).pop()!.replace(/\.json$/, "");
  const run = file.slice(`dispatch-${slice.record.requestId}-`.length);
  return sliceNames(place, slice.record.requestId, run).path;
}

function leftoverOf(slice: SessionSlice, busy: boolean): LeftoverReason | null {
  const wt = slice.record.worktree;
  if (busy) return null;
  if (isSettled(wt)) return wt.removedAt ? null : "settled-not-removed";
  if (wt.state === "creating") return "creation-interrupted";
  if (wt.state === "merging") return "merge-interrupted";
  if (wt.state === "ready" && isTerminal(slice.record.status) && slice.record.status !== "done") {
    return "record-ended";
  }
  return null;
}

export async function takeInventory(project: Project, place: RepoPlace): Promise<Inventory> {
  const [slices, listed, onDisk, busy] = await Promise.all([
    sliceRecords(project),
    listWorktrees(place.toplevel),
    checkoutsOnDisk(place),
    isLocked(project.layout.sliceLock),
  ]);
  const known = new Set(
    slices.map((s) => expectedPath(place, s)).filter((p): p is string => p !== null),
  );
  const ours = (listed ?? []).filter((w) => underWorktreesRoots(place, w.path));
  const byPath = new Map<string, WorktreeEntry>(ours.map((w) => [w.path, w]));
  const orphans: Orphan[] = [];
  for (const path of new Set([...onDisk, ...byPath.keys()])) {
    if (known.has(path)) continue;
    const entry = byPath.get(path);
    orphans.push({
      path,
      branch: entry?.branch ?? null,
      onDisk: onDisk.includes(path),
      listed: entry !== undefined,
      locked: entry?.locked ?? false,
      prunable: entry?.prunable ?? false,
    });
  }
  const leftovers: Leftover[] = [];
  for (const slice of slices) {
    const reason = leftoverOf(slice, busy);
    if (reason) leftovers.push({ entry: slice, reason });
  }
  const conflicts = slices.filter((s) => s.record.worktree.state === "conflict");
  return { place, slices, leftovers, conflicts, orphans, busy };
}

/**
 * The change an orphan checkout holds against the main branch (its commits
 * and its uncommitted files), as a patch; null when nothing can be read.
 */
export async function orphanChange(place: RepoPlace, path: string): Promise<Uint8Array | null> {
  const at = await sliceGit(place, path).catch(() => null);
  if (!at) return null;
  const [head, main] = await Promise.all([
    revParse(at, "HEAD"),
    revParse(place.toplevel, "HEAD"),
  ]);
  if (!head) return null;
  const base = (main ? await mergeBase(place.toplevel, main, head) : null) ?? head;
  const tree = await workingTree(at, join(place.worktreesRoot, TMP_DIR));
  return (await diffTrees(place.toplevel, base, tree)).patch;
}

/** Removes an orphan's checkout, git's entry for it (even a locked one) and its branch. */
export function removeOrphan(place: RepoPlace, orphan: Orphan): Promise<void> {
  const branch = orphan.branch?.startsWith(BRANCH_PREFIX) ? orphan.branch : null;
  return removeWorktree(place, orphan.path, branch);
}

/** The repository's worktrees as `git worktree list` has them (empty when git cannot answer). */
export async function repoWorktrees(place: RepoPlace): Promise<WorktreeEntry[]> {
  return (await listWorktrees(place.toplevel)) ?? [];
}
