/**
 * Creating the worktrees of a wave of isolated slices. The records are
 * written first (their worktree `creating`), then one snapshot of the main
 * tree is taken for the whole wave (uncommitted and untracked changes
 * included, so a slice of level 2 sees what level 1 merged), then one
 * worktree per record, each record moving to `ready`. Callers hold the
 * project's slice lock throughout, so a `creating` record found by anyone
 * holding that lock belongs to a creation that was killed.
 */
import { join } from "../infra/std.ts";
import { readGitHead } from "../infra/git.ts";
import { readRecord, updateRecord } from "../record/record.ts";
import { recordFileOf, runNameFor } from "../record/names.ts";
import { PeaksError } from "../infra/errors.ts";
import { failOpenRecord } from "../record/terminal.ts";
import {
  addWorktree,
  removeWorktree,
  snapshotCommit,
  treeOf,
  type UntrackedFile,
  untrackedFiles,
  workingTree,
} from "./_git.ts";
import {
  ensureWorktreesRoot,
  type RepoPlace,
  sliceNames,
  type WorktreesRootKind,
} from "./place.ts";
import { isoTime } from "../infra/ids.ts";

export const TMP_DIR = ".tmp";

export interface MainTree {
  head: string;
  /** The tree of the main working tree (peaks' own files aside). */
  tree: string;
  /** Nothing differs from HEAD. */
  clean: boolean;
}

/** An untracked file larger than this is not copied into slices (PEAKS_SLICE_UNTRACKED_MAX_BYTES). */
export const UNTRACKED_MAX_BYTES = 16 * 1024 * 1024;

/** The limit in force: the environment's, when it is a whole number of bytes, else the default. */
export function untrackedLimit(): number {
  let raw: string | undefined;
  try {
    raw = Deno.env.get("PEAKS_SLICE_UNTRACKED_MAX_BYTES");
  } catch {
    raw = undefined;
  }
  const n = raw && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) ? n : UNTRACKED_MAX_BYTES;
}

/** The untracked files a wave's snapshot takes, and those over the limit it leaves out. */
export async function untrackedLoad(
  place: RepoPlace,
): Promise<{ copied: UntrackedFile[]; skipped: UntrackedFile[]; limit: number }> {
  const limit = untrackedLimit();
  const files = await untrackedFiles(place.toplevel);
  return {
    copied: files.filter((f) => f.bytes <= limit),
    skipped: files.filter((f) => f.bytes > limit),
    limit,
  };
}

/**
 * HEAD and the main tree's files as they are now, uncommitted and untracked ones included, but
 * for untracked files over the limit (each would be copied into git's objects and every slice).
 */
export async function mainTree(place: RepoPlace): Promise<MainTree> {
  const head = await readGitHead(place.toplevel);
  if (!head) {
    throw new PeaksError(
      "WORKTREE_UNAVAILABLE",
      "Isolated slices need a git repository with at least one commit; none was found. Commit once, or drop isolation from the DAG.",
      { exit: 3 },
    );
  }
  await ensureWorktreesRoot(place);
  const { skipped } = await untrackedLoad(place);
  const tree = await workingTree(
    place.toplevel,
    join(place.worktreesRoot, TMP_DIR),
    skipped.map((f) => f.path),
  );
  return { head: head.head, tree, clean: tree === await treeOf(place.toplevel, head.head) };
}

/** The commit a wave of slices starts from: HEAD when the main tree is clean, else a snapshot of it. */
async function sliceBase(place: RepoPlace): Promise<string> {
  const main = await mainTree(place);
  return main.clean ? main.head : await snapshotCommit(place.toplevel, main.tree, main.head);
}

export interface CreatedSlice {
  recordPath: string;
  path: string;
}

/**
 * One worktree per record (each record's `worktree.state` is `creating`),
 * under the root of that kind; each record ends `ready`.
 */
export async function createSliceWorktrees(
  place: RepoPlace,
  recordPaths: string[],
  now: () => Date,
  kind: WorktreesRootKind = "git",
): Promise<CreatedSlice[]> {
  // A wave the host isolates itself leaves no empty folder of peaks' behind.
  if (!recordPaths.length) return [];
  await ensureWorktreesRoot(place, kind);
  const base = await sliceBase(place);
  const created: CreatedSlice[] = [];
  for (const recordPath of recordPaths) {
    const file = recordFileOf(recordPath);
    const record = await readRecord(recordPath);
    if (!record?.worktree) continue;
    const names = sliceNames(place, record.requestId, runNameFor(file, record.requestId), kind);
    await Deno.mkdir(join(names.path, ".."), { recursive: true });
    await addWorktree(place, names, base);
    await updateRecord(recordPath, (r) => {
      if (!r?.worktree) return { result: undefined };
      const at = isoTime(now());
      return {
        value: {
          ...r,
          updatedAt: at,
          worktree: {
            ...r.worktree,
            state: "ready",
            path: names.path,
            projectDir: names.projectDir,
            // Detached at the snapshot: no branch (lib/slice/_git.ts addWorktree).
            branch: null,
            base,
            updatedAt: at,
          },
        },
        result: undefined,
      };
    });
    created.push({ recordPath, path: names.path });
  }
  return created;
}

/**
 * A creation that failed: whatever git made goes, each record is failed (its
 * sub-agent never started) and its worktree marked discarded.
 */
export async function undoCreation(
  place: RepoPlace,
  recordPaths: string[],
  reason: string,
  now: () => Date,
): Promise<void> {
  for (const recordPath of recordPaths) {
    const record = await readRecord(recordPath).catch(() => undefined);
    const wt = record?.worktree;
    if (!record || !wt) continue;
    if (wt.path) await removeWorktree(place, wt.path, wt.branch);
    const at = isoTime(now());
    await failOpenRecord(recordPath, `its worktree could not be created: ${reason}`, at);
    await updateRecord(recordPath, (r) =>
      r?.worktree
        ? {
          value: {
            ...r,
            updatedAt: at,
            worktree: {
              ...r.worktree,
              state: "discarded",
              note: reason,
              removedAt: at,
              updatedAt: at,
            },
          },
          result: undefined,
        }
        : { result: undefined });
  }
}
