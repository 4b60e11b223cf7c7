/** Copilot CLI: the task tool, general-purpose agent, sync, observed with @github/copilot 1.0.102. */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "copilot",
  name: "Copilot CLI",
  envVars: ["COPILOT_CLI"],
  // .github is in most repositories, so it marks nothing.
  projectDir: null,
  contextWindow: 200_000,
  subAgent: {
    tool: "task",
    aliases: [],
    promptKey: "prompt",
    // name is required; mode "sync" returns the sub-agent's final text inline.
    args: (call) => ({
      description: call.description,
      prompt: call.prompt,
      agent_type: "general-purpose",
      name: call.name,
      mode: "sync",
    }),
    verified: true,
    version: "1.0.102",
    source: "@github/copilot",
    // Free strings in the schema (context_tier, the third override, is not passed).
    model: { key: "model" },
    effort: { key: "reasoning_effort" },
  },
  skills: {
    project: [".agents/skills", ".claude/skills", ".github/skills"],
    user: [".agents/skills", ".copilot/skills"],
    verified: true,
    source: "@github/copilot",
  },
  mcp: {
    toolName: "<server>-<tool>",
    prefix: "<server>-",
    add: "copilot mcp add <server> -- <command>",
    config: ".mcp.json (trusted folders) / ~/.copilot/mcp-config.json mcpServers",
    files: [
      { scope: "project", path: ".mcp.json", format: "json", key: "mcpServers" },
      { scope: "user", path: ".copilot/mcp-config.json", format: "json", key: "mcpServers" },
    ],
  },
  statusLine: false,
  hooks: {
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
    // Fail-closed: any non-zero exit or garbage from a preToolUse hook refuses the tool.
    deny: "top-level",
    context: "top-level",
    version: "1.0.102",
  },
  vendor: "copilot",
  packaging: "plugin",
  permissions: { env: ["COPILOT_CLI"], run: ["copilot"] },
};
