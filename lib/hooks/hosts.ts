/**
 * What each host's lifecycle hooks look like, as observed in the real CLIs (Claude Code 2.1.328,
 * Codex 0.169.0, Gemini CLI 0.61.0, Qwen Code 0.24.4, Copilot CLI 1.0.102): where the hooks are
 * configured, which events peaks listens to, the names of the sub-agent and shell tools, and the
 * answer formats. One small table keyed by host id, read by `peaks hooks run` and `peaks hooks
 * install`.
 */

import { host as codex } from "../hosts/codex.ts";
import { host as gemini } from "../hosts/gemini.ts";

const CODEX_TOOL = codex.subAgent!.tool;
const GEMINI_TOOL = gemini.subAgent!.tool;

export const HOOK_HOSTS = ["claude-code", "qwen-code", "gemini", "codex", "copilot"] as const;
export type HookHost = (typeof HOOK_HOSTS)[number];

export type HookScope = "user" | "project" | "local";

/** One event peaks registers: the host's name for it and the tool matcher, when it has one. */
export interface HookEventSpec {
  event: string;
  matcher?: string;
}

export interface HookHostFacts {
  /** `claude`: settings `hooks` map of matcher groups; `copilot`: a `{version, hooks}` file of its own. */
  dialect: "claude" | "copilot";
  /** Settings file per scope: `~` is the home folder, otherwise relative to the project root. */
  files: Partial<Record<HookScope, string>>;
  /** The hook `timeout` unit. */
  timeoutUnit: "s" | "ms";
  events: HookEventSpec[];
  /** Tools that start a sub-agent (their input carries the prompt). */
  subAgentTools: string[];
  shellTools: string[];
  /** How a tool call is refused. */
  deny: "hook-specific" | "top-level" | "decision";
  /** How text is added to the orchestrator's context at session start. */
  context: "hook-specific" | "top-level" | "both";
  /** A step the user still takes before the hooks run. */
  note?: string;
}

const CLAUDE_EVENTS = (agent: string, shell: string): HookEventSpec[] => [
  { event: "SessionStart" },
  { event: "PreToolUse", matcher: `${agent}|${shell}` },
  { event: "PostToolUse", matcher: agent },
  { event: "PostToolUseFailure", matcher: agent },
  { event: "SubagentStart" },
  { event: "SubagentStop" },
];

export const HOOK_HOST_FACTS: Record<HookHost, HookHostFacts> = {
  "claude-code": {
    dialect: "claude",
    files: {
      user: "~/.claude/settings.json",
      project: ".claude/settings.json",
      local: ".claude/settings.local.json",
    },
    timeoutUnit: "s",
    events: [...CLAUDE_EVENTS("Agent|Task", "Bash"), { event: "StopFailure" }],
    subAgentTools: ["Agent", "Task"],
    shellTools: ["Bash"],
    deny: "hook-specific",
    context: "both",
  },
  "qwen-code": {
    dialect: "claude",
    files: { user: "~/.qwen/settings.json", project: ".qwen/settings.json" },
    timeoutUnit: "s",
    events: CLAUDE_EVENTS("agent", "run_shell_command"),
    subAgentTools: ["agent"],
    shellTools: ["run_shell_command"],
    deny: "hook-specific",
    context: "hook-specific",
  },
  gemini: {
    dialect: "claude",
    files: { user: "~/.gemini/settings.json", project: ".gemini/settings.json" },
    timeoutUnit: "ms",
    events: [
      { event: "SessionStart" },
      { event: "BeforeTool", matcher: GEMINI_TOOL },
      { event: "AfterTool", matcher: GEMINI_TOOL },
    ],
    subAgentTools: [GEMINI_TOOL],
    shellTools: [],
    deny: "decision",
    context: "hook-specific",
    note:
      "Gemini CLI loads project hooks only in a trusted folder (~/.gemini/trustedFolders.json); " +
      "user hooks need no trust.",
  },
  codex: {
    dialect: "claude",
    files: { user: "~/.codex/hooks.json", project: ".codex/hooks.json" },
    timeoutUnit: "s",
    events: [
      { event: "SessionStart" },
      { event: "PreToolUse", matcher: `${CODEX_TOOL}|Bash` },
      { event: "PostToolUse", matcher: CODEX_TOOL },
      { event: "SubagentStart" },
      { event: "SubagentStop" },
    ],
    subAgentTools: [CODEX_TOOL],
    shellTools: ["Bash"],
    deny: "hook-specific",
    context: "hook-specific",
    note:
      "Codex runs no hook until it is trusted: review it once in the Codex TUI (/hooks), or run " +
      "`codex exec --dangerously-bypass-hook-trust`; project hooks also need the project trusted.",
  },
  copilot: {
    dialect: "copilot",
    files: { user: "~/.copilot/hooks/peaks.json", project: ".github/hooks/peaks.json" },
    timeoutUnit: "s",
    events: [
      { event: "sessionStart" },
      { event: "preToolUse" },
      { event: "postToolUse" },
      { event: "postToolUseFailure" },
      { event: "subagentStart" },
      { event: "subagentStop" },
    ],
    subAgentTools: ["task"],
    shellTools: ["bash"],
    deny: "top-level",
    context: "top-level",
  },
};

export function isHookHost(value: string): value is HookHost {
  return (HOOK_HOSTS as readonly string[]).includes(value);
}

/** Seconds peaks asks each hook to finish in (a hook past it is killed and the host goes on). */
export const HOOK_TIMEOUT_SEC = 10;

/** The command a host runs for one event. */
export function hookCommand(host: HookHost, event: string): string {
  return `peaks hooks run --host ${host} --event ${event}`;
}
