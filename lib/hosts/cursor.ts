/** Cursor: no sub-agent tool named in its public docs; skills in its own folder (docs, unverified). */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "cursor",
  name: "Cursor",
  envVars: ["CURSOR_TRACE_ID", "CURSOR_AGENT"],
  projectDir: ".cursor",
  contextWindow: 200_000,
  subAgent: null,
  skills: {
    project: [".cursor/skills"],
    user: [".cursor/skills"],
    verified: false,
    source: "https://cursor.com/docs/context/skills",
  },
  mcp: {
    toolName: "<server> tools, as listed in Cursor's MCP settings",
    prefix: null,
    add: null,
    config: ".cursor/mcp.json / ~/.cursor/mcp.json mcpServers",
    files: [],
  },
  statusLine: false,
  hooks: null,
  vendor: null,
  packaging: null,
  permissions: { env: ["CURSOR_*"], run: [] },
};
