/**
 * The end of a request's workflow: after txt `finalized` the orchestrator shows the user the
 * change, proposes a commit message and asks; `request close --decision` records the answer in
 * `_runtime/<sid>/closed/<rid>.json`. Until then the workflow's next step is `request close`.
 */
import type { Project } from "../workspace/project.ts";
import { join } from "../infra/std.ts";
import { readBoundedText, writeJsonAtomic } from "../infra/fs/files.ts";
import { assertId } from "../infra/ids.ts";
import { runGit, workingTreeChanges } from "../infra/git.ts";
import { assertWritable } from "../workspace/writable.ts";
import type { Warning } from "../infra/errors.ts";
import { isPeaksOwnFile, porcelainPath } from "../workspace/own_files.ts";

/**
 * committed / uncommitted: the user's answer at the end of a finished request; abandoned: the
 * user dropped the request before it finished (its files stay as they are).
 */
export const CLOSE_DECISIONS = ["committed", "uncommitted", "abandoned"] as const;
export type CloseDecision = typeof CLOSE_DECISIONS[number];

/** Changed files are shown up to this many; the rest is counted. */
export const CLOSE_FILES_SHOWN = 40;

export function closurePath(project: Project, sid: string, rid: string): string {
  return join(project.layout.sessionDir(sid), "closed", `${assertId(rid, "request id")}.json`);
}

export async function isClosed(project: Project, sid: string, rid: string): Promise<boolean> {
  return (await readClosure(project, sid, rid)) !== undefined;
}

/**
 * The request's closure, when it has one. The decision is read defensively (the file is a
 * peaks state file a clone may carry): anything but a known decision reads as `committed`, so a
 * closure file always closes and never reopens a request.
 */
export async function readClosure(
  project: Project,
  sid: string,
  rid: string,
): Promise<{ decision: CloseDecision } | undefined> {
  const text = await readBoundedText(closurePath(project, sid, rid)).catch(() => undefined);
  if (text === undefined) return undefined;
  let decision: unknown;
  try {
    decision = (JSON.parse(text) as { decision?: unknown } | null)?.decision;
  } catch {
    decision = undefined;
  }
  return {
    decision: (CLOSE_DECISIONS as readonly unknown[]).includes(decision)
      ? decision as CloseDecision
      : "committed",
  };
}

export async function writeClosure(
  project: Project,
  sid: string,
  rid: string,
  record: { decision: CloseDecision; closedAt: string; uncommittedFiles: number },
): Promise<string> {
  const path = closurePath(project, sid, rid);
  await assertWritable(project, path, "the request's closure");
  await writeJsonAtomic(path, { rid, ...record });
  return path;
}

export interface ChangeSummary {
  /** Porcelain lines outside `.peaks/` (` M src/a.ts`, `?? src/b.ts`), at most CLOSE_FILES_SHOWN. */
  files: string[];
  total: number;
  /**
   * peaks' own files among the changes (skills, settings, CLAUDE.md/AGENTS.md), apart from the
   * request's change: the user decides whether they go in a commit; they never hold a close back.
   */
  peaksFiles: string[];
  /** `git diff --shortstat` against HEAD for tracked files, e.g. "2 files changed, 9 insertions(+)". */
  diffStat: string | null;
  /** False outside a git checkout (nothing to show or commit). */
  git: boolean;
}

/**
 * A porcelain line of one of peaks' own files, matched from the repository's top level and from
 * each folder below it (a project inside a larger repository).
 */
function isOwnChange(line: string): boolean {
  const parts = porcelainPath(line).split("/");
  return parts.some((_, i) => isPeaksOwnFile(parts.slice(i).join("/")));
}

export async function changeSummary(root: string): Promise<ChangeSummary> {
  const changes = await workingTreeChanges(root);
  if (changes === undefined) {
    return { files: [], total: 0, peaksFiles: [], diffStat: null, git: false };
  }
  const product = changes.filter((line) => !isOwnChange(line));
  const stat = await runGit(root, ["diff", "--shortstat", "HEAD", "--", ".", ":(exclude).peaks"]);
  return {
    files: product.slice(0, CLOSE_FILES_SHOWN),
    total: product.length,
    peaksFiles: changes.filter(isOwnChange).slice(0, CLOSE_FILES_SHOWN),
    diffStat: stat.ok && stat.out.trim() ? stat.out.trim().slice(0, 200) : null,
    git: true,
  };
}

/** `<type>(<rid>): <PRD title>`, the title from the PRD's first heading (`# PRD <rid>: <title>`). */
export function commitMessage(type: string, rid: string, prdBody: string | undefined): string {
  const heading = /^#\s+(.+)$/m.exec(prdBody ?? "")?.[1] ?? "";
  const title = heading.replace(/^PRD\s+\S+:\s*/i, "").trim().slice(0, 72);
  const kind = type === "bugfix" ? "fix" : type === "feature" ? "feat" : type;
  return `${kind}(${rid}): ${title || "change"}`;
}

/**
 * A new request on a changed tree starts with a warning (it is not refused: the user may mean
 * to build on the change), naming how many files and why it matters.
 */
export async function dirtyTreeWarning(root: string): Promise<Warning | undefined> {
  // peaks' own setup (skills, settings, the standards in CLAUDE.md/AGENTS.md) is not a request's
  // change; a fresh project has it uncommitted. Paths are matched from the repository's top level
  // and from each folder below it, for a project inside a larger repository.
  const changes = (await workingTreeChanges(root))?.filter((line) => !isOwnChange(line));
  if (!changes?.length) return undefined;
  return {
    code: "TREE_DIRTY",
    message:
      `${changes.length} file(s) outside .peaks/ are changed and not committed (an earlier ` +
      "request not closed with a commit?): they will show in this request's diffs, reviews and audits, " +
      "and sub-agent worktrees start from the last commit without them. Ask the user to commit or set " +
      "them aside first, or go on knowingly.",
  };
}
