/**
 * Where the worktrees of isolated slices live: under the repository's own git
 * bookkeeping, `<git common dir>/peaks-worktrees/<project key>/<rid>/<run>`,
 * outside the main working tree's files (no test runner, linter or search in
 * the project ever walks `.git`), on the branch `peaks/<rid>/<run>` named
 * after the dispatch record `dispatch-<rid>-<run>.json`. The project key keeps
 * the slices of two peaks projects in one repository (a monorepo) apart.
 */
import { isAbsolute, join, relative, resolve, SEPARATOR } from "../std.ts";
import { PeaksError } from "../errors.ts";
import type { Project } from "../project/project.ts";
import { runGit } from "../project/git.ts";
import { shortHash } from "../record/names_light.ts";

export const WORKTREES_DIR = "peaks-worktrees";
export const BRANCH_PREFIX = "peaks/";

export interface RepoPlace {
  /** Real path of the main working tree's top level. */
  toplevel: string;
  /** Real path of the repository's common git directory. */
  commonDir: string;
  /** The project folder relative to the top level, forward slashes ("" when they are one). */
  projectRel: string;
  /** This project's slice worktrees: `<commonDir>/peaks-worktrees/<key>`. */
  worktreesRoot: string;
}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

const slash = (path: string) => SEPARATOR === "/" ? path : path.split(SEPARATOR).join("/");

/**
 * The repository around the project, or null outside one (or without git).
 * The common git directory must be a real folder: a `.git` that resolves
 * somewhere else through a symlink is refused rather than written into.
 */
export async function repoPlace(project: Project): Promise<RepoPlace | null> {
  const result = await runGit(project.root, ["rev-parse", "--show-toplevel", "--git-common-dir"]);
  if (!result.ok) return null;
  const [top, common] = result.out.trim().split("\n");
  if (!top || !common) return null;
  const toplevel = await Deno.realPath(top);
  const lexicalCommon = resolve(project.root, common);
  const commonDir = await Deno.realPath(lexicalCommon);
  if (!(await Deno.stat(commonDir)).isDirectory) return null;
  const root = await Deno.realPath(project.root);
  if (!inside(toplevel, root)) return null;
  const projectRel = slash(relative(toplevel, root));
  const key = `p-${shortHash(projectRel || ".")}`;
  return { toplevel, commonDir, projectRel, worktreesRoot: join(commonDir, WORKTREES_DIR, key) };
}

export interface SliceNames {
  /** Absolute path of the checkout. */
  path: string;
  /** The project's folder inside the checkout. */
  projectDir: string;
  branch: string;
}

/** The checkout and branch of the record `dispatch-<rid>-<run>.json`. */
export function sliceNames(place: RepoPlace, rid: string, run: string): SliceNames {
  const path = join(place.worktreesRoot, rid, run);
  return {
    path,
    projectDir: place.projectRel ? join(path, ...place.projectRel.split("/")) : path,
    branch: `${BRANCH_PREFIX}${rid}/${run}`,
  };
}

/**
 * Creates this project's worktrees folder and checks it did not land outside
 * the git directory through a symlink: every write of a slice stays inside
 * the project or the repository's own `.git`.
 */
export async function ensureWorktreesRoot(place: RepoPlace): Promise<void> {
  await Deno.mkdir(place.worktreesRoot, { recursive: true });
  const real = await Deno.realPath(place.worktreesRoot);
  if (!inside(place.commonDir, real)) {
    throw new PeaksError(
      "PATH_OUTSIDE_PROJECT",
      `${place.worktreesRoot} resolves to ${real}, outside the repository's git directory; remove that symlink.`,
      { data: { path: place.worktreesRoot } },
    );
  }
}

/** True when `path` is one of this project's peaks worktrees (lexically and for real). */
export async function isPeaksWorktreePath(place: RepoPlace, path: string): Promise<boolean> {
  if (!inside(place.worktreesRoot, path) || path === place.worktreesRoot) return false;
  try {
    return inside(place.commonDir, await Deno.realPath(path));
  } catch {
    return true; // gone already: the lexical check decides
  }
}

/** A file path of a patch, relative to the top level, seen from the project: inside it or not. */
export function inProject(place: RepoPlace, file: string): boolean {
  return place.projectRel === "" || file === place.projectRel ||
    file.startsWith(`${place.projectRel}/`);
}
