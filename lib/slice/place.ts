/**
 * Where the worktrees of isolated slices live: under the repository's own git
 * bookkeeping, `<git common dir>/peaks-worktrees/<project key>/<rid>/<run>`,
 * outside the main working tree's files (no test runner, linter or search in
 * the project ever walks `.git`), detached (no branch; records made before
 * that named the branch `peaks/<rid>/<run>`), named after the dispatch record
 * `dispatch-<rid>-<run>.json`. The project key keeps
 * the slices of two peaks projects in one repository (a monorepo) apart.
 *
 * A host that refuses its sub-agents' writes under `.git/` but allows them
 * under `.claude/worktrees/` of the folder it runs in (Claude Code, in-process)
 * gets them at `<project>/.claude/worktrees/peaks-<project key>/<rid>/<run>`
 * instead: the project's own folder, where the host runs, which is the top
 * level's (next to the host's own worktrees) unless the project is a folder
 * inside the repository. Started there, Claude Code refuses writes under the
 * top level's `.claude/worktrees`, outside its folder. Every reader handles
 * both roots.
 */
import { dirname, isAbsolute, join, relative, resolve, SEPARATOR } from "../infra/std.ts";
import { isNotFound, PeaksError } from "../infra/errors.ts";
import type { Project } from "../workspace/project.ts";
import { runGit } from "../infra/git.ts";
import { shortHash } from "../record/names.ts";

export const WORKTREES_DIR = "peaks-worktrees";
/** Where a host keeps its own worktrees inside the main tree (Claude Code). */
export const HOST_WORKTREES_DIR = [".claude", "worktrees"] as const;

/** Which root a slice's worktree goes under: the git directory, or the host's worktrees folder. */
export type WorktreesRootKind = "git" | "host";
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
  /** The same in the host's folder: `<project>/.claude/worktrees/peaks-<key>`. */
  hostWorktreesRoot: string;
}

/** True when `candidate` is `root` or lies under it (lexically). */
export function inside(root: string, candidate: string): boolean {
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
  return {
    toplevel,
    commonDir,
    projectRel,
    worktreesRoot: join(commonDir, WORKTREES_DIR, key),
    hostWorktreesRoot: join(root, ...HOST_WORKTREES_DIR, `peaks-${key}`),
  };
}

/** The folder the roots of this kind must stay inside (for real, symlinks resolved). */
function containerOf(place: RepoPlace, kind: WorktreesRootKind): string {
  return kind === "git" ? place.commonDir : dirname(place.hostWorktreesRoot);
}

export function worktreesRootOf(place: RepoPlace, kind: WorktreesRootKind): string {
  return kind === "git" ? place.worktreesRoot : place.hostWorktreesRoot;
}

/** Both roots of this project's slice worktrees, with their kind. */
export function worktreesRoots(place: RepoPlace): Array<{ kind: WorktreesRootKind; root: string }> {
  return [
    { kind: "git", root: place.worktreesRoot },
    { kind: "host", root: place.hostWorktreesRoot },
  ];
}

export interface SliceNames {
  /** Absolute path of the checkout. */
  path: string;
  /** The project's folder inside the checkout. */
  projectDir: string;
  branch: string;
}

/** The checkout and branch of the record `dispatch-<rid>-<run>.json`. */
export function sliceNames(
  place: RepoPlace,
  rid: string,
  run: string,
  kind: WorktreesRootKind = "git",
): SliceNames {
  const path = join(worktreesRootOf(place, kind), rid, run);
  return {
    path,
    projectDir: place.projectRel ? join(path, ...place.projectRel.split("/")) : path,
    branch: `${BRANCH_PREFIX}${rid}/${run}`,
  };
}

/**
 * Creates this project's worktrees folder of that kind and checks it did not
 * land elsewhere through a symlink: every write of a slice stays inside the
 * project, the repository's own `.git` or the project's `.claude/worktrees`.
 */
export async function ensureWorktreesRoot(
  place: RepoPlace,
  kind: WorktreesRootKind = "git",
): Promise<void> {
  const root = worktreesRootOf(place, kind);
  const where = kind === "git"
    ? "the repository's git directory"
    : "the project's .claude/worktrees";
  const refuse = (real: string) =>
    new PeaksError(
      "PATH_OUTSIDE_PROJECT",
      `${root} resolves to ${real}, outside ${where}; remove that symlink.`,
      { data: { path: root } },
    );
  // What exists of it already must not lead elsewhere (mkdir would create the rest there): it is
  // inside the container, or a folder on the way to it, resolved to where it stands.
  const container = containerOf(place, kind);
  const existing = await existingPart(root);
  const onTheWay = existing.real === existing.lexical && inside(existing.real, container);
  if (!inside(container, existing.real) && !onTheWay) throw refuse(existing.real);
  await Deno.mkdir(root, { recursive: true });
  const real = await Deno.realPath(root);
  if (!inside(container, real)) throw refuse(real);
}

/** The deepest folder of `path` that exists, as written and resolved. */
async function existingPart(path: string): Promise<{ lexical: string; real: string }> {
  for (let dir = path;; dir = dirname(dir)) {
    try {
      return { lexical: dir, real: await Deno.realPath(dir) };
    } catch (error) {
      if (!isNotFound(error) || dirname(dir) === dir) throw error;
    }
  }
}

/** True when `path` is one of this project's peaks worktrees, under either root (lexically and for real). */
export async function isPeaksWorktreePath(place: RepoPlace, path: string): Promise<boolean> {
  const found = worktreesRoots(place).find(({ root }) => inside(root, path) && path !== root);
  if (!found) return false;
  try {
    return inside(containerOf(place, found.kind), await Deno.realPath(path));
  } catch {
    return true; // gone already: the lexical check decides
  }
}

/** True when `path` lies under one of this project's worktrees roots (a checkout or what is left of one). */
export function underWorktreesRoots(place: RepoPlace, path: string): boolean {
  return worktreesRoots(place).some(({ root }) => path.startsWith(`${root}/`));
}

/** A file path of a patch, relative to the top level, seen from the project: inside it or not. */
export function inProject(place: RepoPlace, file: string): boolean {
  return place.projectRel === "" || file === place.projectRel ||
    file.startsWith(`${place.projectRel}/`);
}
