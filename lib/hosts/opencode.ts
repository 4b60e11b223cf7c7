/** OpenCode: the task tool with the general agent, observed with opencode-ai 1.18.33. */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "opencode",
  name: "OpenCode",
  // OpenCode also sets AGENT=1, a generic name other tools use too.
  envVars: ["OPENCODE"],
  projectDir: ".opencode",
  contextWindow: 200_000,
  subAgent: {
    tool: "task",
    aliases: [],
    promptKey: "prompt",
    // "general-purpose" is not an OpenCode agent; "general" is.
    args: (call) => ({
      description: call.description,
      prompt: call.prompt,
      subagent_type: "general",
    }),
    verified: true,
    version: "1.18.33",
    source: "opencode-ai",
    // task takes no model or effort (the agent's own config picks them).
  },
  skills: {
    project: [".agents/skills", ".claude/skills", ".opencode/skills"],
    user: [".agents/skills", ".claude/skills", ".config/opencode/skills"],
    verified: true,
    source: "opencode-ai",
  },
  mcp: {
    toolName: "<server>_<tool>",
    prefix: "<server>_",
    add: "opencode mcp add <server> -- <command>",
    config: "opencode.json / ~/.config/opencode/opencode.json mcp",
    files: [
      { scope: "project", path: "opencode.json", format: "json", key: "mcp" },
      { scope: "user", path: ".config/opencode/opencode.json", format: "json", key: "mcp" },
    ],
  },
  statusLine: false,
  hooks: {
    // In-process plugin hooks (a JS/TS module run by Bun), no settings file: peaks' plugin
    // (extensions/opencode) runs `peaks hooks run --host opencode --event <its hook>`.
    dialect: "plugin",
    files: {},
    timeoutUnit: "s",
    events: [
      { event: "tool.execute.before", matcher: "task|bash" },
      { event: "tool.execute.after", matcher: "task" },
      { event: "session.created" },
      { event: "experimental.chat.system.transform" },
    ],
    subAgentTools: ["task"],
    shellTools: ["bash"],
    // The plugin turns these answers into a thrown error (a refusal) and a system-prompt block.
    deny: "hook-specific",
    context: "hook-specific",
    note:
      "Install the plugin: opencode plugin <PEAKS_HOME>/extensions/opencode (-g for every project).",
    version: "1.18.33",
  },
  vendor: "opencode",
  packaging: "plugin",
  permissions: { env: ["OPENCODE"], run: ["opencode"] },
};
