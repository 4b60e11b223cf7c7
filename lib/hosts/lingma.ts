/** Lingma: no sub-agent tool named in its public docs; skills in .lingma/skills (docs, unverified). */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "lingma",
  name: "Lingma",
  envVars: [],
  projectDir: ".lingma",
  contextWindow: 128_000,
  subAgent: null,
  skills: {
    project: [".lingma/skills"],
    user: [".lingma/skills"],
    verified: false,
    source: "https://help.aliyun.com/zh/lingma/",
  },
  mcp: {
    toolName: "<server> tools, as listed in Lingma's MCP settings",
    prefix: null,
    add: null,
    config: "Lingma's MCP settings",
    files: [],
  },
  statusLine: false,
  hooks: null,
  vendor: null,
  packaging: null,
  permissions: { env: [], run: [] },
};
