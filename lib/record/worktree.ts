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
import { displayPath } from "../workspace/paths.ts";
import type { SliceWorktree } from "../state/record.ts";
import { SETTLED_STATES } from "../state/record.ts";

export type { SliceConflict, SliceWorktree } from "../state/record.ts";

export { SETTLED_STATES, WORKTREE_STATES, type WorktreeState } from "../state/record.ts";

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
