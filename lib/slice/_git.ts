/**
 * The git plumbing of slice worktrees, all through `runGit`: the tree of a
 * working tree (uncommitted and untracked files included) read through a
 * throw-away index, so neither the main tree's index nor a slice's is ever
 * touched; snapshot commits; worktrees added and removed; patches made,
 * checked and applied.
 */
import { dirname, join, resolve } from "../infra/std.ts";
import { PeaksError } from "../infra/errors.ts";
import { type GitResult, runGit } from "../infra/git.ts";
import { randomHex } from "../infra/ids.ts";
import { exists } from "../infra/fs/files.ts";
import type { RepoPlace, SliceNames } from "./place.ts";
import { inside, isPeaksWorktreePath } from "./place.ts";

/**
 * What never travels between trees, nor makes the main tree count as changed:
 * peaks' own files (a slice's artefacts go to the main project); Claude Code's
 * worktrees, which it makes inside the main tree under `.claude/worktrees/`
 * without ignoring them (a checkout there would be read as an embedded
 * repository); and the personal `.claude/settings.local.json` that
 * `peaks permissions install` writes, which no slice may change.
 */
const EXCLUDES = [
  ":(exclude,glob)**/.peaks/**",
  ":(exclude,glob)**/.claude/worktrees/**",
  ":(exclude,glob)**/.claude/settings.local.json",
];

/** The identity of snapshot commits: they are peaks' bookkeeping, not anyone's work. */
const IDENTITY = {
  GIT_AUTHOR_NAME: "peaks",
  GIT_AUTHOR_EMAIL: "peaks@localhost",
  GIT_COMMITTER_NAME: "peaks",
  GIT_COMMITTER_EMAIL: "peaks@localhost",
};

function failed(what: string, result: GitResult): PeaksError {
  const detail = result.err.trim().split("\n").slice(-3).join(" ") || `exit ${result.code}`;
  return new PeaksError("WORKTREE_GIT_FAILED", `git could not ${what}: ${detail}`, {
    data: { code: result.code },
  });
}

const SHA = /^[0-9a-f]{40,64}$/;

/**
 * Where git runs for a slice's checkout: its folder, with the git directory
 * and work tree given on the command line, so the checkout's own `.git` entry
 * (a file its sub-agent can rewrite) never chooses the repository or config.
 */
export interface SliceGit {
  cwd: string;
  args: string[];
}

/** A folder of the main tree (trusted), or a slice checkout reached through `sliceGit`. */
export type GitAt = string | SliceGit;

function gitAt(at: GitAt, args: string[], options?: Parameters<typeof runGit>[2]) {
  return typeof at === "string"
    ? runGit(at, args, options)
    : runGit(at.cwd, [...at.args, ...args], options);
}

function tampered(path: string, why: string): PeaksError {
  return new PeaksError(
    "SLICE_GIT_TAMPERED",
    `The slice worktree ${path} no longer points at the git directory peaks made for it (${why}); peaks runs no git there. Nothing of it is merged; its files stay for you to read.`,
    { exit: 3, data: { path } },
  );
}

/**
 * The trusted way into a slice checkout: git's admin folder for it is found
 * from the main repository's side (`<common dir>/worktrees/<name>/gitdir`),
 * and the checkout's `.git` must be a plain file naming exactly that folder.
 * Anything else (a `.git` folder from `git init`, a file pointing at a
 * repository the sub-agent wrote, a symlink) is refused: SLICE_GIT_TAMPERED.
 */
export async function sliceGit(place: RepoPlace, path: string): Promise<SliceGit> {
  const admin = await adminDirOf(place, path);
  if (!admin) throw tampered(path, "git has no worktree entry for it");
  const dotGit = join(path, ".git");
  const info = await Deno.lstat(dotGit).catch(() => null);
  if (!info?.isFile || info.size > 4096) throw tampered(path, ".git is not the file git wrote");
  const text = await Deno.readTextFile(dotGit).catch(() => "");
  const named = /^gitdir: (.+)\n?$/.exec(text)?.[1];
  const real = named ? await Deno.realPath(resolve(path, named)).catch(() => null) : null;
  if (real !== admin) throw tampered(path, `.git names ${named ?? "nothing"}`);
  return { cwd: path, args: [`--git-dir=${admin}`, `--work-tree=${path}`] };
}

export async function revParse(cwd: GitAt, rev: string): Promise<string | null> {
  const result = await gitAt(cwd, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`]);
  const sha = result.out.trim();
  return result.ok && SHA.test(sha) ? sha : null;
}

export async function treeOf(cwd: string, rev: string): Promise<string | null> {
  const result = await runGit(cwd, ["rev-parse", "--verify", "--quiet", `${rev}^{tree}`]);
  const sha = result.out.trim();
  return result.ok && SHA.test(sha) ? sha : null;
}

/**
 * The tree of everything git would add in the working tree at `cwd` (its top
 * level): tracked changes, untracked files that are not ignored, deletions.
 * Read through a copy of that tree's index, so the index itself is unchanged.
 */
export async function workingTree(
  cwd: GitAt,
  tmpDir: string,
  skip: readonly string[] = [],
): Promise<string> {
  await Deno.mkdir(tmpDir, { recursive: true });
  const tmp = join(tmpDir, `index-${randomHex(8)}`);
  const env = { GIT_INDEX_FILE: tmp };
  try {
    const where = await gitAt(cwd, ["rev-parse", "--git-path", "index"]);
    const index = resolve(typeof cwd === "string" ? cwd : cwd.cwd, where.out.trim());
    if (where.ok && await exists(index)) {
      await Deno.copyFile(index, tmp);
      // An index older than every file makes git compare each entry's content
      // ("racily clean") instead of trusting its cached size and time: a file
      // rewritten with the same size within the second it was checked out
      // would otherwise be read as unchanged.
      await Deno.utime(tmp, 1, 1); // not 0: git reads a zero index time as "unknown"
    }
    const left = skip.map((path) => `:(exclude,literal)${path}`);
    const add = await gitAt(cwd, ["add", "-A", "--", ".", ...EXCLUDES, ...left], {
      env,
      stderr: true,
    });
    if (!add.ok) throw failed("read the working tree", add);
    const tree = await gitAt(cwd, ["write-tree"], { env, stderr: true });
    if (!tree.ok || !SHA.test(tree.out.trim())) throw failed("write the working tree", tree);
    return tree.out.trim();
  } finally {
    await Deno.remove(tmp).catch(() => {});
    await Deno.remove(`${tmp}.lock`).catch(() => {});
  }
}

/** An untracked, not ignored file of the main tree, as `git add -A` would take it. */
export interface UntrackedFile {
  /** Relative to the top level, with forward slashes. */
  path: string;
  bytes: number;
}

/** The untracked files a snapshot of the main tree would carry (peaks' own files aside), with sizes. */
export async function untrackedFiles(cwd: string): Promise<UntrackedFile[]> {
  const listed = await runGit(cwd, [
    "ls-files",
    "-z",
    "--others",
    "--exclude-standard",
    "--",
    ".",
    ...EXCLUDES,
  ]);
  if (!listed.ok) throw failed("list the untracked files", listed);
  const files: UntrackedFile[] = [];
  for (const path of listed.out.split("\0").filter(Boolean)) {
    const info = await Deno.lstat(join(cwd, path)).catch(() => null);
    if (info?.isFile) files.push({ path, bytes: info.size });
  }
  return files;
}

/** A commit holding `tree` on top of `parent`, named for peaks; nothing points at it but a slice's HEAD. */
export async function snapshotCommit(cwd: string, tree: string, parent: string): Promise<string> {
  const result = await runGit(
    cwd,
    ["commit-tree", tree, "-p", parent, "-m", "peaks: the main tree a slice starts from"],
    { env: IDENTITY, stderr: true },
  );
  if (!result.ok || !SHA.test(result.out.trim())) throw failed("record the main tree", result);
  return result.out.trim();
}

/**
 * `git worktree add` without the repository's hooks (an install hook would run once per slice),
 * detached at the snapshot: no branch, so making and removing a slice never updates a ref. A git
 * killed while it deletes a branch leaves `packed-refs.lock` behind, and every later ref deletion
 * in the repository (the user's included) fails until someone removes it by hand. The worktree's
 * own HEAD keeps the snapshot commit from garbage collection while the slice lives.
 */
export async function addWorktree(place: RepoPlace, names: SliceNames, commit: string) {
  const result = await runGit(place.toplevel, [
    "-c",
    "core.hooksPath=/dev/null",
    "worktree",
    "add",
    "--quiet",
    "--detach",
    names.path,
    commit,
  ], { stderr: true });
  if (!result.ok) throw failed(`create the worktree ${names.path}`, result);
}

export async function mergeBase(cwd: string, a: string, b: string): Promise<string | null> {
  const result = await runGit(cwd, ["merge-base", a, b]);
  const sha = result.out.trim();
  return result.ok && SHA.test(sha) ? sha : null;
}

const DIFF = ["--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"];

/**
 * The patch from `base` to `tree` (binary-safe, full hashes), the files it
 * changes, and those of them that are nested repositories (gitlinks, mode
 * 160000): a patch carries only their commit, never their files.
 */
export async function diffTrees(
  cwd: string,
  base: string,
  tree: string,
): Promise<{ patch: Uint8Array; files: string[]; gitlinks: string[] }> {
  const [patch, raw] = await Promise.all([
    runGit(cwd, ["diff", "--binary", "--full-index", ...DIFF, base, tree], { stderr: true }),
    runGit(cwd, ["diff", "--raw", "-z", "--no-abbrev", ...DIFF, base, tree], { stderr: true }),
  ]);
  if (!patch.ok) throw failed("make the slice's patch", patch);
  if (!raw.ok) throw failed("list the slice's files", raw);
  const files: string[] = [];
  const gitlinks: string[] = [];
  const parts = raw.out.split("\0");
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [, newMode] = parts[i].replace(/^\n?:/, "").split(" ");
    files.push(parts[i + 1]);
    if (newMode === "160000") gitlinks.push(parts[i + 1]);
  }
  return { patch: patch.bytes, files, gitlinks };
}

/** A file name as a literal `--include`/`--exclude` pattern. */
function literal(file: string): string {
  return file.replace(/[\\*?[]/g, "\\$&");
}

export interface ApplyOptions {
  check?: boolean;
  reverse?: boolean;
  include?: string[];
  exclude?: string[];
}

/** `git apply` in the main tree's top level: the working files only, never the index. */
export function applyPatch(
  place: RepoPlace,
  patchPath: string,
  options: ApplyOptions = {},
): Promise<GitResult> {
  return runGit(place.toplevel, [
    "apply",
    ...(options.check ? ["--check"] : []),
    ...(options.reverse ? ["-R"] : []),
    ...(options.include ?? []).map((f) => `--include=${literal(f)}`),
    ...(options.exclude ?? []).map((f) => `--exclude=${literal(f)}`),
    patchPath,
  ], { stderr: true });
}

export interface WorktreeEntry {
  path: string;
  head: string | null;
  branch: string | null;
  locked: boolean;
  prunable: boolean;
}

/** `git worktree list --porcelain`; undefined when git cannot answer. */
export async function listWorktrees(cwd: string): Promise<WorktreeEntry[] | undefined> {
  const result = await runGit(cwd, ["worktree", "list", "--porcelain"]);
  if (!result.ok) return undefined;
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | undefined;
  for (const line of result.out.split("\n")) {
    if (line.startsWith("worktree ")) {
      current = { path: line.slice(9), head: null, branch: null, locked: false, prunable: false };
      entries.push(current);
    } else if (!current) continue;
    else if (line.startsWith("HEAD ")) current.head = line.slice(5);
    else if (line.startsWith("branch ")) {
      current.branch = line.slice(7).replace(/^refs\/heads\//, "");
    } else if (line === "locked" || line.startsWith("locked ")) current.locked = true;
    else if (line === "prunable" || line.startsWith("prunable ")) current.prunable = true;
  }
  return entries;
}

/**
 * The admin folder (`<common dir>/worktrees/<name>`) git keeps for the
 * checkout at `path`, found by its `gitdir` file; null when there is none.
 */
export async function adminDirOf(place: RepoPlace, path: string): Promise<string | null> {
  const admin = join(place.commonDir, "worktrees");
  try {
    for await (const entry of Deno.readDir(admin)) {
      if (!entry.isDirectory) continue;
      const gitdir = await Deno.readTextFile(join(admin, entry.name, "gitdir")).catch(() => "");
      const named = resolve(gitdir.trim());
      if (named === join(path, ".git")) return join(admin, entry.name);
      // The same folder reached through a symlink (a host that named it by another path).
      const real = await Deno.realPath(dirname(named)).catch(() => null);
      if (real && real === await Deno.realPath(path).catch(() => null)) {
        return join(admin, entry.name);
      }
    }
  } catch {
    // no linked worktrees at all
  }
  return null;
}

/**
 * Removes a slice's checkout, git's admin entry for it and its branch (only
 * records made before slices were detached name one), in an order that a kill
 * at any point leaves something this same call finishes: git's own removal
 * first (it also handles a locked entry), then whatever is left of the
 * folder, then the admin entry (a creation killed half-way leaves one locked,
 * which `git worktree prune` would never remove), then the branch.
 */
export async function removeWorktree(
  place: RepoPlace,
  path: string,
  branch: string | null,
): Promise<void> {
  await runGit(place.toplevel, ["worktree", "remove", "--force", "--force", path]);
  const ours = await isPeaksWorktreePath(place, path);
  if (ours && await exists(path)) await Deno.remove(path, { recursive: true });
  const admin = await adminDirOf(place, path);
  if (admin) await Deno.remove(admin, { recursive: true }).catch(() => {});
  if (branch) await runGit(place.toplevel, ["branch", "-D", "--", branch]);
  if (ours && inside(place.hostWorktreesRoot, path)) {
    await pruneEmpty(place.hostWorktreesRoot, path);
  }
}

/**
 * Removes the folders between a removed checkout and its root, then the root,
 * as long as they are empty: what peaks made inside the main tree's
 * `.claude/worktrees` goes with its last slice.
 */
async function pruneEmpty(root: string, path: string): Promise<void> {
  for (let dir = dirname(path); inside(root, dir); dir = dirname(dir)) {
    try {
      await Deno.remove(dir); // not recursive: a folder that holds anything stays
    } catch {
      return;
    }
    if (dir === root) return;
  }
}

/** A file of a tree: its mode and bytes, or null when the tree has no such file. */
export async function blobAt(
  cwd: string,
  tree: string,
  file: string,
): Promise<{ mode: string; bytes: Uint8Array } | null> {
  const listed = await runGit(cwd, ["ls-tree", "-z", tree, "--", file]);
  const entry = listed.out.split("\0").find((e) => e.endsWith(`\t${file}`));
  if (!listed.ok || !entry) return null;
  const [mode, type, sha] = entry.slice(0, entry.indexOf("\t")).split(" ");
  if (type !== "blob") {
    throw new PeaksError(
      "SLICE_UNSAFE_PATH",
      `${file} is a ${
        type === "commit" ? "nested repository" : type
      } in the slice, not a file; merge-back cannot carry it.`,
      { exit: 3, data: { file } },
    );
  }
  const blob = await runGit(cwd, ["cat-file", "blob", sha]);
  if (!blob.ok) return null;
  return { mode, bytes: blob.bytes };
}
