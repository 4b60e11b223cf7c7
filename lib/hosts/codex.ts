/** Codex: spawn_agent then wait_agent (namespace multi_agent_v1), observed with @openai/codex 0.169.0. */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "codex",
  name: "Codex",
  // CODEX_SANDBOX is set on macOS only; the other two are set on every platform.
  envVars: ["CODEX_SANDBOX", "CODEX_MANAGED_BY_NPM", "CODEX_THREAD_ID"],
  projectDir: ".codex",
  contextWindow: 272_000,
  subAgent: {
    tool: "spawn_agent",
    aliases: [],
    promptKey: "message",
    namespace: "multi_agent_v1",
    // 0.169 starts the child without the parent's history unless fork_context is true.
    args: (call) => ({ message: call.prompt }),
    verified: true,
    version: "0.169.0",
    source: "@openai/codex",
    // Free strings in the schema; a model override is picked from the host's model catalog.
    model: { key: "model" },
    effort: { key: "reasoning_effort" },
    followUp:
      "spawn_agent answers at once with the agent's id: call wait_agent with targets [<that id>] to get its final message. " +
      "wait_agent returns when the first of its targets finishes: call it again for the others.",
  },
  skills: {
    project: [".agents/skills", ".codex/skills"],
    user: [".agents/skills", ".codex/skills"],
    verified: true,
    source: "@openai/codex",
  },
  mcp: {
    toolName: "mcp__<server> namespace, tool <tool>",
    prefix: "mcp__<server>__",
    add: "codex mcp add <server> -- <command>",
    config: "~/.codex/config.toml [mcp_servers.<server>]",
    files: [
      { scope: "project", path: ".codex/config.toml", format: "toml", key: "mcp_servers" },
      { scope: "user", path: ".codex/config.toml", format: "toml", key: "mcp_servers" },
    ],
  },
  statusLine: false,
  hooks: {
    dialect: "claude",
    files: { user: "~/.codex/hooks.json", project: ".codex/hooks.json" },
    timeoutUnit: "s",
    events: [
      { event: "SessionStart" },
      { event: "PreToolUse", matcher: "spawn_agent|Bash" },
      { event: "PostToolUse", matcher: "spawn_agent" },
      { event: "SubagentStart" },
      { event: "SubagentStop" },
    ],
    subAgentTools: ["spawn_agent"],
    // exec_command is reported to hooks as "Bash".
    shellTools: ["Bash"],
    deny: "hook-specific",
    context: "hook-specific",
    note:
      "Codex runs no hook until it is trusted: review it once in the Codex TUI (/hooks), or run " +
      "`codex exec --dangerously-bypass-hook-trust`; project hooks also need the project trusted.",
    version: "0.169.0",
  },
  vendor: "codex",
  packaging: "plugin",
  permissions: { env: ["CODEX_*"], run: ["codex"] },
};
