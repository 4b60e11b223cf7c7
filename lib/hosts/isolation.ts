/**
 * Hosts whose own sub-agent tool can run a sub-agent in a git worktree, and
 * the argument that asks for it. Claude Code's Agent tool (Task) takes
 * `isolation: "worktree"`: a worktree per sub-agent made from HEAD
 * (`.claude/worktrees/agent-<id>` on branch `worktree-agent-<id>`, Claude
 * Code 2.1.328), removed when unchanged, else kept and named (`worktreePath`,
 * `worktreeBranch`) in the notification that the agent finished. Other hosts
 * get a worktree peaks makes itself.
 *
 * Claude Code also refuses its sub-agents' writes under `.git/` (and under
 * `.claude/` outside `.claude/worktrees/`), so when peaks makes the worktree
 * of a Claude Code sub-agent itself, it puts it under `.claude/worktrees/`.
 */
import type { IdeEntry } from "./registry.ts";

const HOST_ISOLATION: Record<string, Record<string, unknown>> = {
  "claude-code": { isolation: "worktree" },
};

/** The tool-call arguments that isolate a sub-agent in this host, or null when it has none. */
export function hostIsolationArgs(ide: IdeEntry): Record<string, unknown> | null {
  return ide.inProcess ? HOST_ISOLATION[ide.id] ?? null : null;
}

const WORKTREES_IN_HOST_FOLDER = new Set(["claude-code"]);

/**
 * True when peaks' own worktrees for this host's in-process sub-agents go
 * under the main tree's `.claude/worktrees/` rather than under `.git/`.
 */
export function peaksWorktreesInHostFolder(ide: IdeEntry): boolean {
  return ide.inProcess !== null && WORKTREES_IN_HOST_FOLDER.has(ide.id);
}
