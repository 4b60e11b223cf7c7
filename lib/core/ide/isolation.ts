/**
 * Hosts whose own sub-agent tool can run a sub-agent in a git worktree, and
 * the argument that asks for it. Claude Code's Agent tool (Task) takes
 * `isolation: "worktree"`: a temporary worktree per sub-agent, removed when
 * unchanged, its path and branch reported in the tool result. Other hosts get
 * a worktree peaks makes itself.
 */
import type { IdeEntry } from "./ide.ts";

const HOST_ISOLATION: Record<string, Record<string, unknown>> = {
  "claude-code": { isolation: "worktree" },
};

/** The tool-call arguments that isolate a sub-agent in this host, or null when it has none. */
export function hostIsolationArgs(ide: IdeEntry): Record<string, unknown> | null {
  return ide.inProcess ? HOST_ISOLATION[ide.id] ?? null : null;
}
