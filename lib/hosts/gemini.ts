/** Gemini CLI: invoke_agent with the generalist agent, observed with @google/gemini-cli 0.61.0. */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "gemini",
  name: "Gemini CLI",
  envVars: ["GEMINI_CLI"],
  projectDir: ".gemini",
  contextWindow: 1_000_000,
  subAgent: {
    tool: "invoke_agent",
    aliases: [],
    promptKey: "prompt",
    // No parent transcript; the generalist stops after 20 turns / 10 minutes unless
    // agents.overrides.generalist.runConfig is raised in settings.json.
    args: (call) => ({ agent_name: "generalist", prompt: call.prompt }),
    verified: true,
    version: "0.61.0",
    source: "@google/gemini-cli",
    // invoke_agent takes agent_name and prompt only: no model, no effort.
    // A sub-agent that ends with plain text loses it: complete_task is the only way to finish.
    finish:
      'Instead of a plain final message, call the complete_task tool with {"result":{"response":"<that JSON, as a string>"}}; ' +
      "in Gemini CLI a plain final message is lost.",
  },
  skills: {
    project: [".agents/skills", ".gemini/skills"],
    user: [".agents/skills", ".gemini/skills"],
    verified: true,
    source: "@google/gemini-cli",
  },
  mcp: {
    toolName: "mcp_<server>_<tool>",
    prefix: "mcp_<server>_",
    add: "gemini mcp add -s user <server> <command>",
    config: ".gemini/settings.json (trusted folders only) / ~/.gemini/settings.json mcpServers",
    files: [
      { scope: "project", path: ".gemini/settings.json", format: "json", key: "mcpServers" },
      { scope: "user", path: ".gemini/settings.json", format: "json", key: "mcpServers" },
    ],
  },
  statusLine: false,
  hooks: {
    dialect: "claude",
    files: { user: "~/.gemini/settings.json", project: ".gemini/settings.json" },
    timeoutUnit: "ms",
    // No sub-agent events, and a sub-agent's own tool calls carry no agent id.
    events: [
      { event: "SessionStart" },
      { event: "BeforeTool", matcher: "invoke_agent" },
      { event: "AfterTool", matcher: "invoke_agent" },
    ],
    subAgentTools: ["invoke_agent"],
    shellTools: [],
    deny: "decision",
    context: "hook-specific",
    note:
      "Gemini CLI loads project hooks only in a trusted folder (~/.gemini/trustedFolders.json); " +
      "user hooks need no trust.",
    version: "0.61.0",
  },
  vendor: "gemini",
  packaging: "extension",
  permissions: { env: ["GEMINI_CLI"], run: ["gemini"] },
};
