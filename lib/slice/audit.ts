/**
 * The commit audit of an isolated slice: commits made inside its worktree
 * since the slice started. Sub-agents must not commit there either; their
 * changes still come back as a patch, and finalize reports the commits as
 * UNAUTHORIZED_COMMIT.
 */
import { type Commit, commitsSince } from "../infra/git.ts";
import { exists } from "../infra/fs/files.ts";
import type { DispatchRecord } from "../record/record.ts";
import { revParse } from "./_git.ts";

/** Undefined when git cannot tell; empty when the slice has no worktree (yet). */
export async function sliceCommits(
  root: string,
  record: DispatchRecord,
): Promise<Commit[] | undefined> {
  const wt = record.worktree;
  if (!wt) return [];
  const base = wt.base ?? (wt.kind === "host" ? record.gitHead : null);
  const live = wt.path && !wt.removedAt && await exists(wt.path)
    ? await revParse(wt.path, "HEAD")
    : null;
  const until = wt.head ?? live ?? null;
  if (!base || !until) return [];
  return await commitsSince(root, base, until);
}
