/** Claude Code: the Agent tool (Task in 1.x), observed with @anthropic-ai/claude-code 2.1.328. */
import { claudeHookEvents, type HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "claude-code",
  name: "Claude Code",
  envVars: ["CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"],
  projectDir: ".claude",
  contextWindow: 200_000,
  subAgent: {
    tool: "Agent",
    aliases: ["Task"],
    promptKey: "prompt",
    args: (call) => ({
      subagent_type: "general-purpose",
      description: call.description,
      prompt: call.prompt,
    }),
    verified: true,
    version: "2.1.328",
    source: "@anthropic-ai/claude-code",
    // The schema's enums, as the real CLI sends them to the model.
    model: { key: "model", values: ["sonnet", "opus", "haiku", "fable"] },
    effort: { key: "effort", values: ["low", "medium", "high", "xhigh", "max"] },
    // A worktree per sub-agent made from HEAD (.claude/worktrees/agent-<id>), removed when
    // unchanged; Claude Code refuses its sub-agents' writes under .git/, so peaks' own worktrees
    // for them go under .claude/worktrees/ too.
    isolation: { isolation: "worktree" },
    worktreesInHostFolder: true,
  },
  skills: {
    project: [".claude/skills"],
    user: [".claude/skills"],
    verified: true,
    source: "@anthropic-ai/claude-code",
  },
  mcp: {
    toolName: "mcp__<server>__<tool>",
    prefix: "mcp__<server>__",
    add: "claude mcp add <server> -- <command>",
    config: ".mcp.json / ~/.claude.json mcpServers",
    files: [
      { scope: "project", path: ".mcp.json", format: "json", key: "mcpServers" },
      { scope: "user", path: ".claude.json", format: "json", key: "projects.<root>.mcpServers" },
      { scope: "user", path: ".claude.json", format: "json", key: "mcpServers" },
    ],
  },
  statusLine: true,
  hooks: {
    dialect: "claude",
    files: {
      user: "~/.claude/settings.json",
      project: ".claude/settings.json",
      local: ".claude/settings.local.json",
    },
    timeoutUnit: "s",
    events: [...claudeHookEvents("Agent|Task", "Bash"), { event: "StopFailure" }],
    subAgentTools: ["Agent", "Task"],
    shellTools: ["Bash"],
    deny: "hook-specific",
    // Also the top-level form: Copilot CLI runs a Claude Code plugin's hooks but reads only that one.
    context: "both",
    version: "2.1.328",
  },
  vendor: "claude",
  packaging: "plugin",
  permissions: { env: ["CLAUDECODE", "CLAUDE_CODE_*"], run: ["claude"] },
};
