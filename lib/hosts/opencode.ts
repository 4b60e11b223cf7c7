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
  hooks: [],
  vendor: "opencode",
  packaging: null,
  permissions: { env: ["OPENCODE"], run: ["opencode"] },
};
