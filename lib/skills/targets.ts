/** Flags and target resolution shared by the four `skills` commands. */
import { flag } from "../infra/command/flag.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { commandLine, projectArgs } from "../infra/shell.ts";
import type { Warning } from "../infra/errors.ts";
import { exists } from "../infra/fs/files.ts";
import { join } from "../infra/std.ts";
import { resolveProject } from "../workspace/project.ts";
import {
  AGENT_CHOICES,
  type AgentChoice,
  type AgentId,
  AGENTS,
  type InstallRoot,
  installRoots,
  type Scope,
  scopeBase,
  selectAgents,
} from "./agents.ts";

export const SCOPE_CHOICES = ["project", "user", "all"] as const;
export type ScopeChoice = (typeof SCOPE_CHOICES)[number];

export const AGENT_HELP = `Which agent's skills folder: ${
  AGENTS.map((a) => `${a.id} (${a.project.join("/")})`).join(", ")
}, or all.`;

export const writeFlags = {
  agent: flag.enum(AGENT_CHOICES, AGENT_HELP, { default: "claude-code" }),
  scope: flag.enum(["project", "user"], "The project's folders, or the user's (under HOME).", {
    default: "project",
  }),
  "dry-run": flag.boolean("Report what would change; write nothing."),
};

export const readFlags = {
  agent: flag.enum(AGENT_CHOICES, AGENT_HELP, { default: "all" }),
  scope: flag.enum(SCOPE_CHOICES, "The project's folders, the user's (under HOME), or both.", {
    default: "all",
  }),
};

export interface Targets {
  roots: InstallRoot[];
  /** Set when a project-scope folder is involved. */
  projectRoot?: string;
}

export async function resolveTargets(
  ctx: Ctx,
  agent: AgentChoice,
  scope: ScopeChoice,
): Promise<Targets> {
  const scopes: Scope[] = scope === "all" ? ["project", "user"] : [scope];
  const agents: AgentId[] = selectAgents(agent);
  const roots: InstallRoot[] = [];
  let projectRoot: string | undefined;
  for (const one of scopes) {
    // The user scope is skipped (not an error) under `all` when no home folder is known.
    if (one === "user" && scope === "all" && !ctx.env.get("HOME") && !ctx.env.get("USERPROFILE")) {
      continue;
    }
    const base = await scopeBase(ctx, one);
    if (one === "project") projectRoot = base;
    roots.push(...installRoots(agents, one, base));
  }
  return { roots, projectRoot };
}

/** A complete `peaks skills <action>` command line for nextActions. */
export function skillsCommand(
  action: "install" | "uninstall" | "list" | "verify",
  agent: string,
  scope: string,
  projectRoot: string | undefined,
  extra: string[] = [],
): string {
  const words = ["peaks", "skills", action, "--agent", agent, "--scope", scope];
  if (projectRoot && scope !== "user") words.push(...projectArgs(projectRoot));
  return commandLine([...words, ...extra]);
}

/** The repair offered when a manifest is unreadable: reinstall with --force rebuilds it. */
export function repairCommands(root: InstallRoot, projectRoot: string | undefined): string[] {
  return [skillsCommand("install", root.agents[0], root.scope, projectRoot, ["--force"])];
}

/** Files that make a folder a project even without git or a peaks workspace. */
const PROJECT_MARKERS = [
  "package.json",
  "deno.json",
  "deno.jsonc",
  "pyproject.toml",
  "Cargo.toml",
  "go.mod",
  "pom.xml",
  "build.gradle",
  "Gemfile",
  "composer.json",
  "Makefile",
];

/**
 * A warning when the project-scope folder is only the current folder: no --project, no git
 * repository, no peaks workspace and no project file there (a download folder, the home folder).
 */
export async function notAProjectWarning(
  ctx: Ctx,
  scope: ScopeChoice,
  roots: InstallRoot[],
): Promise<Warning | undefined> {
  if (scope === "user") return undefined;
  const project = await resolveProject(ctx);
  if (project.source !== "cwd") return undefined;
  for (const marker of PROJECT_MARKERS) {
    if (await exists(join(project.root, marker))) return undefined;
  }
  const folders = roots.filter((r) => r.scope === "project").map((r) => r.path);
  return {
    code: "NOT_A_PROJECT",
    message:
      `${project.root} is not a project (no git repository, peaks workspace or ${
        PROJECT_MARKERS.slice(0, 3).join("/")
      }...), yet the skills go to ${folders.join(", ")}. To install into a project, ` +
      "cd into it or pass --project <path>; for every project, use --scope user.",
    dir: project.root,
  };
}
