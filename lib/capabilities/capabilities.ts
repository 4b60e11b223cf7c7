/**
 * Which MCP servers a host has configured for this project, read from the
 * host's own config files (bounded reads; a file that cannot be read or
 * parsed is reported, never fatal), matched against the servers the roles use.
 */
import { parse, type ParseError } from "jsonc-parser";
import { FileRefused, readBoundedText } from "../infra/fs/files.ts";
import { isNotFound } from "../infra/errors.ts";
import { join } from "../infra/std.ts";
import type { McpConfigFile } from "../hosts/host.ts";
import { addCommandFor, type McpHost, ROLE_SERVERS, toolPrefix } from "./servers.ts";

const CONFIG_MAX_BYTES = 1024 * 1024;
const MAX_SERVERS = 200;

export interface ConfiguredServer {
  name: string;
  /** The config file it was found in, as shown to the user. */
  source: string;
  scope: McpConfigFile["scope"];
  /** What the model's tool names start with for this server. */
  toolPrefix: string;
  /** design, browser or docs when it is a server the roles use, else null. */
  kind: string | null;
  roles: string[];
}

export interface ConfigFileReport {
  path: string;
  scope: McpConfigFile["scope"];
  status: "read" | "absent" | "unreadable";
  reason?: string;
}

export interface Capabilities {
  servers: ConfiguredServer[];
  files: ConfigFileReport[];
  /** The role servers not configured, each with the host's command to add it. */
  missing: { name: string; kind: string; roles: string[]; addCommand: string }[];
}

export interface Where {
  projectRoot: string;
  home: string | undefined;
  /** How a path is shown (project-relative, `~/` for the home folder). */
  show(path: string, scope: McpConfigFile["scope"]): string;
}

export async function readCapabilities(host: McpHost, where: Where): Promise<Capabilities> {
  const servers: ConfiguredServer[] = [];
  const files: ConfigFileReport[] = [];
  for (const file of host.mcp.files) {
    const base = file.scope === "project" ? where.projectRoot : where.home;
    if (base === undefined) continue;
    const path = join(base, file.path);
    const shown = where.show(path, file.scope);
    const read = await serverNames(path, file, where.projectRoot);
    if (!files.some((f) => f.path === shown)) {
      files.push({ path: shown, scope: file.scope, status: read.status, reason: read.reason });
    }
    for (const name of read.names) {
      if (servers.some((s) => s.name === name) || servers.length >= MAX_SERVERS) continue;
      const known = ROLE_SERVERS.find((s) => s.name === name);
      servers.push({
        name,
        source: shown,
        scope: file.scope,
        toolPrefix: toolPrefix(host, name),
        kind: known?.kind ?? null,
        roles: known?.roles ?? [],
      });
    }
  }
  const missing = ROLE_SERVERS.filter((s) => !servers.some((c) => c.name === s.name)).map((s) => ({
    name: s.name,
    kind: s.kind,
    roles: s.roles,
    addCommand: addCommandFor(host, s.name, s.command),
  }));
  return { servers, files, missing };
}

interface Read {
  status: ConfigFileReport["status"];
  reason?: string;
  names: string[];
}

async function serverNames(path: string, file: McpConfigFile, root: string): Promise<Read> {
  let text: string | undefined;
  try {
    text = await readBoundedText(path, { maxBytes: CONFIG_MAX_BYTES, follow: true });
  } catch (error) {
    if (error instanceof FileRefused) {
      return { status: "unreadable", reason: error.reason, names: [] };
    }
    if (isNotFound(error)) return { status: "absent", names: [] };
    throw error;
  }
  if (text === undefined) return { status: "absent", names: [] };
  if (file.format === "toml") return { status: "read", names: tomlTables(text, file.key) };
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) return { status: "unreadable", reason: "not valid JSON", names: [] };
  let node: unknown = value;
  for (const part of file.key.split(".")) {
    const key = part === "<root>" ? root : part;
    node = node && typeof node === "object" && !Array.isArray(node)
      ? (node as Record<string, unknown>)[key]
      : undefined;
  }
  if (!node || typeof node !== "object" || Array.isArray(node)) {
    return { status: "read", names: [] };
  }
  return { status: "read", names: Object.keys(node).filter(printableName).sort() };
}

/** The `<name>` of every `[<prefix>.<name>]` table header (quoted names too). */
export function tomlTables(text: string, prefix: string): string[] {
  const names = new Set<string>();
  const header = new RegExp(`^\\s*\\[\\s*${prefix}\\.(?:"([^"]+)"|([A-Za-z0-9_-]+))\\s*[\\].]`);
  for (const line of text.split(/\r?\n/)) {
    const match = header.exec(line);
    const name = match?.[1] ?? match?.[2];
    if (name && printableName(name)) names.add(name);
  }
  return [...names].sort();
}

function printableName(name: string): boolean {
  return /^[A-Za-z0-9_.@-]{1,64}$/.test(name);
}
