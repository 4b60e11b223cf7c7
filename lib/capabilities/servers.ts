/**
 * The MCP servers the roles use, and which hosts `peaks capabilities` can
 * read: each host's own MCP facts (tool names, add command, config files)
 * live in its file, lib/hosts/<host>.ts (`mcp`).
 */
import { HOSTS } from "../hosts/registry.ts";
import type { HostDecl, McpFacts } from "../hosts/host.ts";

/** A host whose MCP config files, tool prefix and add command peaks knows. */
export interface McpHost {
  id: string;
  mcp: McpFacts & { prefix: string; add: string };
}

function readable(host: HostDecl): host is HostDecl & McpHost {
  const mcp = host.mcp;
  return mcp !== null && mcp.files.length > 0 && mcp.prefix !== null && mcp.add !== null;
}

export const MCP_HOSTS: readonly McpHost[] = HOSTS.filter(readable);

export const MCP_HOST_IDS = MCP_HOSTS.map((h) => h.id) as [string, ...string[]];

export function mcpHost(id: string): McpHost | undefined {
  return MCP_HOSTS.find((h) => h.id === id);
}

/** The tool prefix the model sees for `server` on `host` (`mcp__playwright__`). */
export function toolPrefix(host: McpHost, server: string): string {
  return host.mcp.prefix.replace("<server>", server);
}

/**
 * The design, browser and docs servers the roles use, with the command that
 * starts each (what `<command>` is in a host's add command).
 */
export const ROLE_SERVERS: readonly {
  name: string;
  kind: string;
  roles: string[];
  command: string;
}[] = [
  {
    name: "playwright",
    kind: "browser",
    roles: ["ui", "qa"],
    command: "npx -y @playwright/mcp@latest",
  },
  {
    name: "chrome-devtools",
    kind: "browser",
    roles: ["ui", "qa"],
    command: "npx -y chrome-devtools-mcp@latest",
  },
  {
    name: "figma",
    kind: "design",
    roles: ["ui"],
    command: "npx -y figma-developer-mcp --stdio",
  },
  { name: "context7", kind: "docs", roles: ["rd"], command: "npx -y @upstash/context7-mcp" },
];

/** The host's add command for `server`, ready to run. */
export function addCommandFor(host: McpHost, server: string, command: string): string {
  return host.mcp.add.replace("<server>", server).replace("<command>", command);
}
