/**
 * Hosts whose own sub-agent tool can run a sub-agent in a git worktree, and
 * the argument that asks for it (declared in the host's file). Other hosts
 * get a worktree peaks makes itself.
 */
import type { IdeEntry } from "./registry.ts";

/** The tool-call arguments that isolate a sub-agent in this host, or null when it has none. */
export function hostIsolationArgs(ide: IdeEntry): Record<string, unknown> | null {
  return ide.subAgent?.isolation ?? null;
}

/**
 * True when peaks' own worktrees for this host's in-process sub-agents go
 * under the host's folder (`.claude/worktrees/`) rather than under `.git/`.
 */
export function peaksWorktreesInHostFolder(ide: IdeEntry): boolean {
  return ide.subAgent?.worktreesInHostFolder === true;
}
