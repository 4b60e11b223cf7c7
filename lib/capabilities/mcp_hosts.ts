/**
 * What each agent host does with MCP servers: where it keeps them, how it
 * names their tools to the model, and its own command to add one. One table,
 * so a host's facts are in one place; `peaks capabilities` and the dispatch
 * brief's tool check read it.
 */

/** Where a host keeps MCP servers: a file and the key holding them. */
export interface McpConfigFile {
  /** `project` files are relative to the project root, `user` files to the home folder. */
  scope: "project" | "user";
  path: string;
  format: "json" | "toml";
  /**
   * JSON: the dotted key of the object whose keys are server names
   * (`mcpServers`); `projects.<root>.mcpServers` reads the entry for this project.
   * TOML: the table prefix (`mcp_servers` for `[mcp_servers.<name>]`).
   */
  key: string;
}

export interface McpHost {
  /** The host id (the IDE ids of lib/hosts/registry.ts where the host has one). */
  id: string;
  /** The host's tool name for tool `<tool>` of server `<server>`. */
  toolName: string;
  /** The host's command that adds a stdio server. */
  addCommand: string;
  files: McpConfigFile[];
}

const json = (scope: McpConfigFile["scope"], path: string, key: string): McpConfigFile => ({
  scope,
  path,
  format: "json",
  key,
});

export const MCP_HOSTS: readonly McpHost[] = [
  {
    id: "claude-code",
    toolName: "mcp__<server>__<tool>",
    addCommand: "claude mcp add <server> -- <command>",
    files: [
      json("project", ".mcp.json", "mcpServers"),
      json("user", ".claude.json", "projects.<root>.mcpServers"),
      json("user", ".claude.json", "mcpServers"),
    ],
  },
  {
    id: "gemini",
    toolName: "mcp_<server>_<tool>",
    addCommand: "gemini mcp add <server> <command>",
    files: [
      json("project", ".gemini/settings.json", "mcpServers"),
      json("user", ".gemini/settings.json", "mcpServers"),
    ],
  },
  {
    id: "qwen",
    toolName: "mcp__<server>__<tool>",
    addCommand: "qwen mcp add <server> <command>",
    files: [
      json("project", ".qwen/settings.json", "mcpServers"),
      json("user", ".qwen/settings.json", "mcpServers"),
    ],
  },
  {
    id: "codex",
    toolName: "mcp__<server>__<tool>",
    addCommand: "codex mcp add <server> -- <command>",
    files: [
      { scope: "project", path: ".codex/config.toml", format: "toml", key: "mcp_servers" },
      { scope: "user", path: ".codex/config.toml", format: "toml", key: "mcp_servers" },
    ],
  },
  {
    id: "opencode",
    toolName: "<server>_<tool>",
    addCommand: "opencode mcp add <server> -- <command>",
    files: [
      json("project", "opencode.json", "mcp"),
      json("user", ".config/opencode/opencode.json", "mcp"),
    ],
  },
  {
    id: "copilot",
    toolName: "<server>-<tool>",
    addCommand: "copilot mcp add <server> -- <command>",
    files: [json("user", ".copilot/mcp-config.json", "mcpServers")],
  },
];

export const MCP_HOST_IDS = MCP_HOSTS.map((h) => h.id) as [string, ...string[]];

export function mcpHost(id: string): McpHost | undefined {
  return MCP_HOSTS.find((h) => h.id === id);
}

/** The tool prefix the model sees for `server` on `host` (`mcp__playwright__`). */
export function toolPrefix(host: McpHost, server: string): string {
  return host.toolName.replace("<server>", server).replace("<tool>", "");
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
  return host.addCommand.replace("<server>", server).replace("<command>", command);
}
