/**
 * The hosts peaks knows, one declaration per file (lib/hosts/<host>.ts).
 * Dispatch, the prompt budget, skills and detection all read them; adding a
 * host is adding one file and one line here.
 */
import type { Env } from "../infra/command/ctx.ts";
import { join } from "../infra/std.ts";
import type { HostDecl } from "./host.ts";
import { host as claudeCode } from "./claude_code.ts";
import { host as codex } from "./codex.ts";
import { host as copilot } from "./copilot.ts";
import { host as cursor } from "./cursor.ts";
import { host as gemini } from "./gemini.ts";
import { host as hermes } from "./hermes.ts";
import { host as lingma } from "./lingma.ts";
import { host as openclaw } from "./openclaw.ts";
import { host as opencode } from "./opencode.ts";
import { host as qoder } from "./qoder.ts";
import { host as qwen } from "./qwen.ts";
import { host as trae } from "./trae.ts";
import { host as zcode } from "./zcode.ts";

export type { HostDecl, SubAgentTool } from "./host.ts";
export type IdeEntry = HostDecl;

/** A host peaks could not tell: no sub-agent tool, nothing known. */
const unknown: HostDecl = {
  id: "unknown",
  name: "an unknown host",
  envVars: [],
  projectDir: null,
  contextWindow: 128_000,
  subAgent: null,
  skills: null,
  mcp: null,
  statusLine: false,
  hooks: null,
  vendor: null,
  packaging: null,
  permissions: { env: [], run: [] },
};

/** Environment detection order: the first host whose variable is set wins. */
export const HOSTS: readonly HostDecl[] = [
  claudeCode,
  trae,
  cursor,
  codex,
  gemini,
  opencode,
  copilot,
  qwen,
  qoder,
  lingma,
  hermes,
  openclaw,
  zcode,
];

export const IDES: readonly HostDecl[] = [...HOSTS, unknown];

export const IDE_IDS = IDES.map((ide) => ide.id) as [string, ...string[]];

/** Project folders, checked after the environment (the most specific first). */
const DIR_ORDER = [
  ".claude",
  ".trae",
  ".cursor",
  ".codex",
  ".qoder",
  ".lingma",
  ".gemini",
  ".opencode",
  ".qwen",
];

export function ideById(id: string): HostDecl | undefined {
  return IDES.find((ide) => ide.id === id);
}

export interface DetectedIde {
  ide: HostDecl;
  source: "flag" | "env" | "project-dir" | "assumed";
  /** The variable or folder that decided, when one did. */
  evidence: string | null;
}

/** `--ide` > environment > project folders > claude-code (assumed, with a warning upstream). */
export async function detectIde(
  env: Env,
  projectRoot: string,
  explicit?: string,
): Promise<DetectedIde> {
  if (explicit) {
    const ide = ideById(explicit);
    if (ide) return { ide, source: "flag", evidence: null };
  }
  for (const ide of HOSTS) {
    const hit = ide.envVars.find((name) => env.get(name));
    if (hit) return { ide, source: "env", evidence: hit };
  }
  for (const dir of DIR_ORDER) {
    try {
      if ((await Deno.stat(join(projectRoot, dir))).isDirectory) {
        const ide = HOSTS.find((entry) => entry.projectDir === dir)!;
        return { ide, source: "project-dir", evidence: dir };
      }
    } catch {
      // not there
    }
  }
  return { ide: claudeCode, source: "assumed", evidence: null };
}

/** The arguments the hosts' sub-agent tools carry a prompt in. */
export const PROMPT_KEYS: readonly string[] = [
  ...new Set(HOSTS.flatMap((h) => h.subAgent ? [h.subAgent.promptKey] : [])),
];

/** The hosts a skills folder can be installed for, in table order. */
export function skillHosts(): HostDecl[] {
  return HOSTS.filter((h) => h.skills !== null);
}

/** The programs and variables the peaks binary must be granted for every host. */
export function hostPermissions(): { env: string[]; run: string[] } {
  const env = new Set<string>();
  const run = new Set<string>();
  for (const h of HOSTS) {
    h.permissions.env.forEach((n) => env.add(n));
    h.permissions.run.forEach((n) => run.add(n));
  }
  return { env: [...env], run: [...run] };
}
