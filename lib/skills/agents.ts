/**
 * Where each agent reads skills from, as its host file declares it
 * (lib/hosts/<host>.ts): peaks installs into the first folder a host lists.
 * The one table `skills install`, `uninstall`, `list` and `verify` use.
 * Several hosts read one shared folder, so peaks installs there once and
 * reports it for each of them.
 */
import { compareText } from "../infra/ids.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError } from "../infra/errors.ts";
import { join } from "../infra/std.ts";
import { resolveProject } from "../workspace/project.ts";
import { skillHosts } from "../hosts/registry.ts";

export const AGENTS: readonly AgentEntry[] = skillHosts().sort((a, b) => compareText(a.id, b.id))
  .map((h) => ({
    id: h.id,
    name: h.name,
    project: h.skills!.project[0].split("/"),
    user: h.skills!.user[0].split("/"),
  }));

export const AGENT_IDS = AGENTS.map((a) => a.id) as [AgentId, ...AgentId[]];
export type AgentId = string;

export const AGENT_CHOICES = [...AGENT_IDS, "all"] as [string, ...string[]];
export type AgentChoice = string;

export const SCOPES = ["project", "user"] as const;
export type Scope = (typeof SCOPES)[number];

export interface AgentEntry {
  id: AgentId;
  name: string;
  /** Skills folder relative to the project root, as path segments. */
  project: readonly string[];
  /** Skills folder relative to the home folder, as path segments. */
  user: readonly string[];
}

export function selectAgents(choice: AgentChoice): AgentId[] {
  return choice === "all" ? [...AGENT_IDS] : [choice];
}

/** One skills folder and the agents (among those asked for) that read it. */
export interface InstallRoot {
  scope: Scope;
  /** The trusted folder the skills folder lives under: the project root or the home folder. */
  base: string;
  /** Path segments from `base` to the skills folder. */
  segments: readonly string[];
  /** The skills folder, absolute. */
  path: string;
  /** The skills folder as shown: `<folder>` or `~/<folder>`. */
  display: string;
  agents: AgentId[];
}

export function homeDir(ctx: Ctx): string {
  const home = ctx.env.get("HOME") || ctx.env.get("USERPROFILE");
  if (!home) {
    throw new PeaksError(
      "HOME_NOT_SET",
      "Neither HOME nor USERPROFILE is set, so the user-scope skills folders cannot be found. Use --scope project, or set HOME.",
    );
  }
  return home;
}

/** The base folder of a scope: the project root (resolved as usual) or the home folder. */
export async function scopeBase(ctx: Ctx, scope: Scope): Promise<string> {
  return scope === "user" ? homeDir(ctx) : (await resolveProject(ctx)).root;
}

/** Groups the agents by the folder they read, keeping the table's order. */
export function installRoots(agents: AgentId[], scope: Scope, base: string): InstallRoot[] {
  const roots = new Map<string, InstallRoot>();
  for (const entry of AGENTS) {
    if (!agents.includes(entry.id)) continue;
    const segments = scope === "user" ? entry.user : entry.project;
    const key = segments.join("/");
    const existing = roots.get(key);
    if (existing) {
      existing.agents.push(entry.id);
      continue;
    }
    roots.set(key, {
      scope,
      base,
      segments,
      path: join(base, ...segments),
      display: scope === "user" ? `~/${key}` : key,
      agents: [entry.id],
    });
  }
  return [...roots.values()];
}
