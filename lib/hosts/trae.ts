/** Trae: no sub-agent tool named in its public docs; skills in .trae/skills (docs, unverified). */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "trae",
  name: "Trae",
  envVars: ["TRAE_AI", "TRAE_AI_SHELL_ID", "TRAE_SESSION_ID"],
  projectDir: ".trae",
  contextWindow: 128_000,
  subAgent: null,
  skills: {
    project: [".trae/skills"],
    user: [".trae/skills"],
    verified: false,
    source: "https://docs.trae.ai/ide/skills",
  },
  mcp: {
    toolName: "<server> tools, as listed in Trae's MCP settings",
    prefix: null,
    add: null,
    config: "Trae's MCP settings",
    files: [],
  },
  statusLine: false,
  hooks: null,
  vendor: null,
  packaging: null,
  permissions: { env: ["TRAE_*"], run: [] },
};
