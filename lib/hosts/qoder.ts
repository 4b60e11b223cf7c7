/** Qoder: no sub-agent tool named in its public docs; skills in .qoder/skills (docs, unverified). */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "qoder",
  name: "Qoder",
  envVars: [],
  projectDir: ".qoder",
  contextWindow: 128_000,
  subAgent: null,
  skills: {
    project: [".qoder/skills"],
    user: [".qoder/skills"],
    verified: false,
    source: "https://docs.qoder.com/extensions/skills",
  },
  mcp: {
    toolName: "<server> tools, as listed in Qoder's MCP settings",
    prefix: null,
    add: null,
    config: "Qoder's MCP settings",
    files: [],
  },
  statusLine: false,
  hooks: null,
  vendor: null,
  packaging: null,
  permissions: { env: [], run: [] },
};
