/** OpenClaw: sessions_spawn, as its public docs name it (unverified). */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "openclaw",
  name: "OpenClaw",
  envVars: [],
  projectDir: null,
  contextWindow: 128_000,
  subAgent: {
    tool: "sessions_spawn",
    aliases: [],
    promptKey: "task",
    args: (call) => ({ task: call.prompt, label: call.name }),
    verified: false,
    version: null,
    source: "https://docs.openclaw.ai/tools/subagents",
    followUp:
      "sessions_spawn answers at once; the sub-agent's result is announced back to this chat when it ends.",
  },
  skills: null,
  mcp: null,
  statusLine: false,
  hooks: null,
  vendor: null,
  packaging: null,
  permissions: { env: [], run: [] },
};
