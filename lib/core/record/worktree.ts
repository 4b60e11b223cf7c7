/**
 * The `worktree` field of a dispatch record: an isolated slice's own git
 * worktree and where its change stands on the way back to the main tree.
 * Dispatch writes it, finalize, `sub-agent merge` and cleanup move it along,
 * the DAG scheduler reads it (an isolated node is done once it is merged).
 *
 *   creating -> ready -> captured -> merging -> merged
 *                                 \-> conflict -> merged (--keep slice) | discarded (--keep main) | redo
 *   (a record that failed: ready -> discarded; an interrupted creation: creating -> discarded)
 */
import { z } from "../zod.ts";
import { displayPath } from "../project/paths.ts";

export const WORKTREE_STATES = [
  "creating",
  "ready",
  "captured",
  "merging",
  "merged",
  "conflict",
  "discarded",
  "redo",
] as const;
export type WorktreeState = (typeof WORKTREE_STATES)[number];

/** States after which the slice's worktree has no further use (it is removed). */
export const SETTLED_STATES: readonly WorktreeState[] = ["merged", "discarded", "redo"];

const iso = z.string().min(1);

export const SliceConflictSchema = z.looseObject({
  /** Repository-relative files the patch could not be applied to. */
  files: z.array(z.string()),
  /** The slices already merged that changed those files. */
  with: z.array(z.looseObject({ node: z.string().nullable(), recordPath: z.string() })),
  /** Some of the files changed in the main tree itself since the slice started. */
  main: z.boolean(),
  message: z.string(),
});
export type SliceConflict = z.infer<typeof SliceConflictSchema>;

export const SliceWorktreeSchema = z.looseObject({
  /** peaks: peaks made it; host: the host's own sub-agent isolation (Claude Code) made it. */
  kind: z.enum(["peaks", "host"]),
  state: z.enum(WORKTREE_STATES),
  node: z.string().nullable(),
  /** [level, position in level]: the DAG order slices are merged in. */
  order: z.tuple([z.number().int(), z.number().int()]).nullable(),
  owns: z.array(z.string()),
  /** Absolute path of the checkout (null for a host worktree until its path is known). */
  path: z.string().nullable(),
  /** Absolute path of the project's folder inside the checkout. */
  projectDir: z.string().nullable(),
  branch: z.string().nullable(),
  /** The commit the slice started from (a snapshot of the main tree, uncommitted changes included). */
  base: z.string().nullable(),
  /** The checkout's HEAD and the tree of its files when the change was captured. */
  head: z.string().nullable(),
  tree: z.string().nullable(),
  /** Project-relative path of the saved patch. */
  patch: z.string().nullable(),
  /** Repository-relative files the patch changes. */
  files: z.array(z.string()),
  conflict: SliceConflictSchema.nullable(),
  note: z.string().nullable(),
  removedAt: iso.nullable(),
  updatedAt: iso,
});
export type SliceWorktree = z.infer<typeof SliceWorktreeSchema>;

export function isSettled(worktree: SliceWorktree): boolean {
  return SETTLED_STATES.includes(worktree.state);
}

/** Where a slice's sub-agent works: its worktree's project folder once peaks made it, else null. */
export function sliceWorkDir(worktree: SliceWorktree | undefined): string | null {
  return worktree?.kind === "peaks" && worktree.state === "ready" && !worktree.removedAt
    ? worktree.projectDir
    : null;
}

/** A slice's worktree as `sub-agent list` and `status` show it. */
export function worktreeRow(root: string, worktree: SliceWorktree) {
  const present = worktree.path !== null && worktree.removedAt === null;
  return {
    kind: worktree.kind,
    state: worktree.state,
    path: present ? displayPath(root, worktree.path!) : null,
    branch: present ? worktree.branch : null,
    patch: worktree.patch,
    ...(worktree.conflict ? { conflictFiles: worktree.conflict.files } : {}),
  };
}
