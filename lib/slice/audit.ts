/**
 * The commit audit of an isolated slice: commits made inside its worktree
 * since the slice started. Sub-agents must not commit there either; their
 * changes still come back as a patch, and finalize reports the commits as
 * UNAUTHORIZED_COMMIT.
 */
import { type Commit, commitsSince } from "../infra/git.ts";
import { exists } from "../infra/fs/files.ts";
import type { DispatchRecord } from "../record/record.ts";
import type { Project } from "../workspace/project.ts";
import { revParse, sliceGit } from "./_git.ts";
import { repoPlace } from "./place.ts";

/** Undefined when git cannot tell; empty when the slice has no worktree (yet). */
export async function sliceCommits(
  project: Project,
  record: DispatchRecord,
): Promise<Commit[] | undefined> {
  const wt = record.worktree;
  if (!wt) return [];
  const base = wt.base ?? (wt.kind === "host" ? record.gitHead : null);
  const place = wt.path && !wt.removedAt && await exists(wt.path) ? await repoPlace(project) : null;
  const at = place && wt.path ? await sliceGit(place, wt.path).catch(() => null) : null;
  const live = at ? await revParse(at, "HEAD") : null;
  const until = wt.head ?? live ?? null;
  if (!base || !until) return [];
  return await commitsSince(project.root, base, until);
}
