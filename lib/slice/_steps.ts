/**
 * The single moves of a slice's worktree, each one written to its record
 * before or after the git work so that a kill at any point leaves a state the
 * next pass (finalize again, `sub-agent merge`, `cleanup`) finishes: capture
 * the change as a patch, remove the checkout, drop an interrupted creation.
 */
import { join } from "../infra/std.ts";
import { PeaksError, type Warning } from "../infra/errors.ts";
import { exists, writeFileAtomic } from "../infra/fs/files.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { type DispatchRecord, updateRecord } from "../record/record.ts";
import { failOpenRecord } from "../record/terminal.ts";
import { recordFileOf, runNameFor } from "../record/names.ts";
import type { SliceWorktree } from "../record/worktree.ts";
import { diffTrees, mergeBase, removeWorktree, revParse, sliceGit, workingTree } from "./_git.ts";
import { TMP_DIR } from "./create.ts";
import { inProject, type RepoPlace, sliceNames } from "./place.ts";
import { isoTime } from "../infra/ids.ts";

export interface SliceEntry {
  /** Absolute record path. */
  path: string;
  record: DispatchRecord & { worktree: SliceWorktree };
}

export interface StepContext {
  project: Project;
  place: RepoPlace;
  now: () => Date;
  warnings: Warning[];
}

/** Writes a change of the record's worktree field; returns the updated entry. */
export async function setWorktree(
  cx: StepContext,
  entry: SliceEntry,
  change: Partial<SliceWorktree>,
): Promise<SliceEntry> {
  const record = await updateRecord(entry.path, (r) => {
    if (!r?.worktree) return { result: undefined };
    const at = isoTime(cx.now());
    const next = { ...r, updatedAt: at, worktree: { ...r.worktree, ...change, updatedAt: at } };
    return { value: next, result: next };
  });
  return record?.worktree
    ? { path: entry.path, record: { ...record, worktree: record.worktree } }
    : entry;
}

export function shownRecord(cx: StepContext, entry: SliceEntry): string {
  return displayPath(cx.project.root, entry.path);
}

function sliceLabel(entry: SliceEntry): string {
  return entry.record.worktree.node ?? entry.record.role;
}

/** Files of the patch that lie outside every path the slice owns (a warning, not a refusal). */
function outsideOwnership(owns: string[], files: string[], place: RepoPlace): string[] {
  if (!owns.length) return [];
  const prefix = place.projectRel ? `${place.projectRel}/` : "";
  const owned = owns.map((o) => `${prefix}${o.replace(/\/+$/, "")}`);
  return files.filter((f) => !owned.some((o) => f === o || f.startsWith(`${o}/`)));
}

/**
 * Turns the checkout's state into a patch against the slice's base: commits
 * made in it, uncommitted edits and new files alike. Saved atomically next to
 * the record before the record says `captured`.
 */
export async function capture(cx: StepContext, entry: SliceEntry): Promise<SliceEntry> {
  const wt = entry.record.worktree;
  if (!wt.path || !(await exists(wt.path))) {
    cx.warnings.push({
      code: "SLICE_WORKTREE_MISSING",
      message: `The worktree of ${sliceLabel(entry)} (${
        wt.path ?? "never reported"
      }) is gone; there is no change to merge back.`,
      recordPath: shownRecord(cx, entry),
    });
    return await setWorktree(cx, entry, { state: "captured", files: [], note: "worktree missing" });
  }
  const read = await readCheckout(cx, entry, wt.path);
  if ("refused" in read) return await refuseCapture(cx, entry, read.refused);
  const { head, tree } = read;
  const base = wt.base ??
    (head && entry.record.gitHead
      ? await mergeBase(cx.place.toplevel, head, entry.record.gitHead)
      : null);
  if (!base) {
    return await setWorktree(cx, entry, {
      state: "conflict",
      conflict: {
        files: [],
        with: [],
        main: false,
        message: `the worktree ${wt.path} has no commit in common with the main branch`,
      },
    });
  }
  const { patch, files, gitlinks } = await diffTrees(cx.place.toplevel, base, tree);
  if (gitlinks.length) {
    return await refuseCapture(
      cx,
      entry,
      nestedMessage(wt.path, gitlinks),
      gitlinks.slice(0, 100),
    );
  }
  const { sessionId, requestId } = entry.record;
  const patchPath = cx.project.layout.slicePatch(
    sessionId,
    requestId,
    runNameFor(recordFileOf(entry.path), requestId),
  );
  await writeFileAtomic(patchPath, patch);
  const outside = outsideOwnership(wt.owns, files, cx.place);
  if (outside.length) {
    cx.warnings.push({
      code: "SLICE_OUTSIDE_OWNERSHIP",
      message: `${sliceLabel(entry)} changed ${outside.length} file(s) it does not own: ${
        outside.slice(0, 5).join(", ")
      }.`,
      recordPath: shownRecord(cx, entry),
      files: outside.slice(0, 20),
    });
  }
  return await setWorktree(cx, entry, {
    state: "captured",
    base,
    head,
    tree,
    files,
    patch: displayPath(cx.project.root, patchPath),
  });
}

/**
 * HEAD and the tree of a checkout, read through the git dir peaks made for it
 * (`sliceGit`); `refused` says why when it cannot be read (a tampered `.git`,
 * an empty `git init` inside it): that slice is refused, not the whole pass.
 */
async function readCheckout(
  cx: StepContext,
  entry: SliceEntry,
  path: string,
): Promise<{ head: string | null; tree: string } | { refused: string }> {
  try {
    const at = await sliceGit(cx.place, path);
    const head = await revParse(at, "HEAD");
    return { head, tree: await workingTree(at, join(cx.place.worktreesRoot, TMP_DIR)) };
  } catch (error) {
    if (!(error instanceof PeaksError)) throw error;
    if (error.code === "SLICE_GIT_TAMPERED") return { refused: error.message };
    return {
      refused:
        `the worktree ${path} cannot be read (${error.message}); nothing was merged and the worktree stays for you to copy from; then sub-agent merge --record ${
          shownRecord(cx, entry)
        } --redo or --keep main`,
    };
  }
}

function nestedMessage(path: string, gitlinks: string[]): string {
  return `the worktree ${path} holds ${gitlinks.length} nested git repositor${
    gitlinks.length === 1 ? "y" : "ies"
  } (${
    gitlinks.slice(0, 5).join(", ")
  }), which merge-back cannot carry; nothing was merged and the worktree stays. Copy their files into the main tree yourself (or add them as submodules), then choose --keep main`;
}

/**
 * A checkout merge-back cannot carry (its git entry was tampered with, it
 * holds a nested repository): a conflict that names why, the worktree kept.
 */
async function refuseCapture(
  cx: StepContext,
  entry: SliceEntry,
  message: string,
  files: string[] = [],
): Promise<SliceEntry> {
  return await setWorktree(cx, entry, {
    state: "conflict",
    conflict: { files, with: [], main: false, message },
  });
}

/** Removes the checkout and its branch, then records it; a repeat after a kill finishes the job. */
export async function removeCheckout(cx: StepContext, entry: SliceEntry): Promise<SliceEntry> {
  const wt = entry.record.worktree;
  if (wt.path) await removeWorktree(cx.place, wt.path, wt.branch);
  return await setWorktree(cx, entry, { removedAt: isoTime(cx.now()) });
}

/**
 * A `creating` record found while holding the slice lock: its creator was
 * killed. Whatever git made of the checkout goes, and the record (whose
 * sub-agent was never started) is failed so the DAG says so.
 */
export async function dropInterrupted(cx: StepContext, entry: SliceEntry): Promise<SliceEntry> {
  const { record } = entry;
  const names = sliceNames(
    cx.place,
    record.requestId,
    runNameFor(recordFileOf(entry.path), record.requestId),
  );
  // The record names its checkout from the start (under either root, detached: no branch);
  // older ones did not, and their checkout was on the branch named after the record.
  const named = record.worktree.path !== null;
  await removeWorktree(
    cx.place,
    record.worktree.path ?? names.path,
    named ? record.worktree.branch : names.branch,
  );
  await failOpenRecord(
    entry.path,
    "its worktree was never finished (the dispatch was interrupted); dispatch the node again",
    isoTime(cx.now()),
  );
  return await setWorktree(cx, entry, {
    state: "discarded",
    note: "creation interrupted",
    removedAt: isoTime(cx.now()),
  });
}

/** Files of a captured patch outside the project folder (a monorepo slice must not reach them). */
export function outsideProject(cx: StepContext, files: string[]): string[] {
  return files.filter((f) => !inProject(cx.place, f));
}
