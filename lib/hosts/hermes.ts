/** Hermes Agent: delegate_task, as its public docs name it (not on npm, unverified). */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "hermes",
  name: "Hermes Agent",
  envVars: [],
  projectDir: null,
  contextWindow: 128_000,
  subAgent: {
    tool: "delegate_task",
    aliases: [],
    promptKey: "goal",
    args: (call) => ({ goal: call.prompt, context: call.description }),
    verified: false,
    version: null,
    source: "https://hermes-agent.nousresearch.com/docs/user-guide/features/delegation",
  },
  skills: null,
  mcp: null,
  statusLine: false,
  hooks: null,
  vendor: null,
  packaging: null,
  permissions: { env: [], run: [] },
};
