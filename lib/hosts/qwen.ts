/** Qwen Code: the agent tool, in the foreground, observed with @qwen-code/qwen-code 0.24.4. */
import { claudeHookEvents, type HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "qwen",
  name: "Qwen Code",
  // QWEN_CODE_AGENT_ID is non-empty inside a sub-agent.
  envVars: ["QWEN_CODE"],
  projectDir: ".qwen",
  contextWindow: 128_000,
  subAgent: {
    tool: "agent",
    aliases: [],
    promptKey: "prompt",
    // Without run_in_background:false the agent runs in the background and its result
    // arrives later as a <task-notification>. Headless, the orchestrator needs
    // --approval-mode auto-edit (or yolo) to call the tool at all.
    args: (call) => ({
      description: call.description,
      prompt: call.prompt,
      subagent_type: "general-purpose",
      run_in_background: false,
    }),
    verified: true,
    version: "0.24.4",
    source: "@qwen-code/qwen-code",
    // agent takes no model or effort, and refuses arguments it does not list.
  },
  skills: {
    project: [".agents/skills", ".qwen/skills"],
    user: [".agents/skills", ".qwen/skills"],
    verified: true,
    source: "@qwen-code/qwen-code",
  },
  mcp: {
    toolName: "mcp__<server>__<tool> (deferred: call it through tool_call)",
    prefix: "mcp__<server>__",
    add: "qwen mcp add -s user <server> <command>",
    config: ".qwen/settings.json / ~/.qwen/settings.json mcpServers",
    files: [
      { scope: "project", path: ".qwen/settings.json", format: "json", key: "mcpServers" },
      { scope: "user", path: ".qwen/settings.json", format: "json", key: "mcpServers" },
    ],
  },
  statusLine: false,
  hooks: {
    dialect: "claude",
    files: { user: "~/.qwen/settings.json", project: ".qwen/settings.json" },
    timeoutUnit: "s",
    events: claudeHookEvents("agent", "run_shell_command"),
    subAgentTools: ["agent"],
    shellTools: ["run_shell_command"],
    deny: "hook-specific",
    context: "hook-specific",
    version: "0.24.4",
  },
  vendor: null,
  packaging: "extension",
  permissions: { env: ["QWEN_CODE"], run: [] },
};
