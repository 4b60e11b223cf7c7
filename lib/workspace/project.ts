import { dirname, isAbsolute, join, resolve } from "../infra/std.ts";
import { isNotFound, PeaksError } from "../infra/errors.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { type Layout, PEAKS_DIR, projectLayout } from "./paths.ts";
import { type GuardOptions, guardPath } from "../infra/fs/guard.ts";
import { exists, isDirectory } from "../infra/fs/files.ts";

export interface Project {
  root: string;
  layout: Layout;
  /** How the root was found: the flag, a workspace, a git top level, or the cwd. */
  source: "flag" | "workspace" | "git" | "cwd";
}

/**
 * Finds the project root: `--project` (must exist; never created), else the
 * nearest ancestor holding a peaks workspace (`.peaks/_runtime`), searched no
 * higher than the enclosing git top level, else that git top level, else the
 * cwd. A bare `.peaks` folder (the install dir in the home folder looks like
 * one) does not count as a workspace.
 */
export async function resolveProject(ctx: Ctx): Promise<Project> {
  const flag = ctx.global.project;
  if (!ctx.cwd && !(flag !== undefined && isAbsolute(flag))) throw cwdNotFound(ctx);
  if (flag !== undefined) {
    const wanted = resolve(ctx.cwd, flag);
    let real: string;
    try {
      real = Deno.realPathSync(wanted);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      throw new PeaksError("PROJECT_NOT_FOUND", `The project directory ${wanted} does not exist.`, {
        data: { project: wanted },
        instructions: [
          "Pass --project the path of an existing directory (peaks never creates it).",
        ],
      });
    }
    if (!(await isDirectory(real))) {
      throw new PeaksError("PROJECT_NOT_FOUND", `The project path ${wanted} is not a directory.`, {
        data: { project: wanted },
      });
    }
    return { root: real, layout: projectLayout(real), source: "flag" };
  }

  let start: string;
  try {
    start = Deno.realPathSync(ctx.cwd);
  } catch (error) {
    throw isNotFound(error) ? cwdNotFound(ctx) : error;
  }
  let dir = start;
  while (true) {
    if (await isDirectory(join(dir, PEAKS_DIR, "_runtime"))) {
      return { root: dir, layout: projectLayout(dir), source: "workspace" };
    }
    if (await exists(join(dir, ".git"))) {
      return { root: dir, layout: projectLayout(dir), source: "git" };
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return { root: start, layout: projectLayout(start), source: "cwd" };
}

function cwdNotFound(ctx: Ctx): PeaksError {
  return new PeaksError(
    "CWD_NOT_FOUND",
    `The current folder${
      ctx.cwd ? ` ${ctx.cwd}` : ""
    } no longer exists (it was deleted or moved while the shell was in it). cd into the project, or pass --project with its absolute path.`,
    { data: { cwd: ctx.cwd || null } },
  );
}

/**
 * Resolves a path flag against the trusted base: the `--project` root when it
 * was given, else the cwd (which lies inside the detected root).
 */
export function guardFlagPath(
  ctx: Ctx,
  project: Project,
  raw: string,
  options: GuardOptions,
): Promise<string> {
  const base = project.source === "flag" ? project.root : ctx.cwd;
  return guardPath(project.root, base, raw, options);
}
