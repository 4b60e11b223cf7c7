/**
 * The change finalize leaves for review: the working tree's changes (outside `.peaks/`, new files
 * included), split into what the sub-agent did and what was there before it. The files peaks
 * itself writes (installed skills, Claude Code settings, the standards blocks in CLAUDE.md and
 * AGENTS.md) and every file last written before the dispatch (the orchestrator's startup, an
 * earlier step) are counted on one line each, so they do not bury the sub-agent's change.
 */
import { CHANGES_SHOWN, runGit } from "../infra/git.ts";
import { join } from "../infra/std.ts";
import { isPeaksOwnFile, porcelainPath as pathOf } from "../workspace/own_files.ts";

export interface ReviewedChanges {
  /** Porcelain lines of the sub-agent's change (at most CHANGES_SHOWN, then a "... n more" line). */
  changes: string[] | undefined;
  /** Files peaks wrote, not listed. */
  peaksFiles: number;
  /** Files changed before the dispatch and not since, not listed. */
  beforeDispatch: number;
  lines: string[];
}

/** The repository's top level, where porcelain paths start; the project root when git cannot say. */
async function toplevel(root: string): Promise<string> {
  const top = await runGit(root, ["rev-parse", "--show-toplevel"]);
  return top.ok && top.out.trim() ? top.out.trim() : root;
}

/** Coarse file times (FAT, some network mounts) must not hide a file written just after dispatch. */
const MTIME_SLACK_MS = 2000;

/** Last written before `since` (ms): a file the sub-agent did not touch. Deleted files never are. */
async function before(top: string, path: string, since: number): Promise<boolean> {
  const info = await Deno.lstat(join(top, path)).catch(() => null);
  return info?.mtime != null && info.mtime.getTime() < since - MTIME_SLACK_MS;
}

/**
 * `changes` as porcelain lines (workingTreeChanges); `dispatchedAt` the earliest dispatch of the
 * finalized records (ms), undefined when unknown.
 */
export async function reviewChanges(
  root: string,
  changes: string[] | null | undefined,
  dispatchedAt: number | undefined,
): Promise<ReviewedChanges> {
  if (!changes) return { changes: undefined, peaksFiles: 0, beforeDispatch: 0, lines: [] };
  const top = await toplevel(root);
  const prefix = root === top ? "" : `${root.slice(top.length + 1).replaceAll("\\", "/")}/`;
  const inProject = (path: string) => path.startsWith(prefix) ? path.slice(prefix.length) : path;
  const peaks = changes.filter((line) => isPeaksOwnFile(inProject(pathOf(line))));
  const rest = changes.filter((line) => !peaks.includes(line));
  const old = dispatchedAt === undefined ? [] : await Promise.all(
    rest.map((line) => before(top, pathOf(line), dispatchedAt)),
  );
  const theirs = rest.filter((_, i) => !old[i]);
  const beforeDispatch = rest.length - theirs.length;
  const shown = theirs.length > CHANGES_SHOWN
    ? [...theirs.slice(0, CHANGES_SHOWN), `... ${theirs.length - CHANGES_SHOWN} more`]
    : theirs;
  const notes = [
    ...(peaks.length
      ? [`${peaks.length} file(s) peaks wrote (skills, settings, CLAUDE.md/AGENTS.md), not listed`]
      : []),
    ...(beforeDispatch
      ? [`${beforeDispatch} file(s) changed before the dispatch and not since, not listed`]
      : []),
  ];
  const lines = shown.length || notes.length
    ? ["working tree:", ...[...shown, ...notes].map((c) => `  ${c}`)]
    : [];
  return { changes: shown, peaksFiles: peaks.length, beforeDispatch, lines };
}
