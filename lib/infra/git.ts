/**
 * The little git peaks needs: the commit a sub-agent started from, and the
 * commits that appeared on the branch since (sub-agents must not commit).
 * `git` is the only program the binary may run besides the vendor CLIs; the
 * worktrees of isolated slices (`lib/core/slice/`) run it through `runGit`.
 */
import { dirname, join, resolve } from "./std.ts";
import { exists, readBoundedText } from "./fs/files.ts";

export interface GitHead {
  head: string;
  /** The branch name, or "HEAD" when detached. */
  branch: string;
}

export interface GitResult {
  ok: boolean;
  /** Exit code; -1 when git could not be started. */
  code: number;
  out: string;
  /** stdout as bytes (patches may hold text in any encoding). */
  bytes: Uint8Array;
  err: string;
}

export interface GitOptions {
  /** Extra variables for this call (GIT_INDEX_FILE, an identity for commit-tree). */
  env?: Record<string, string>;
  /** Keep stderr (error messages name the files a patch does not apply to). */
  stderr?: boolean;
  /** Bytes for stdin (`cat-file --batch`); none otherwise. */
  input?: Uint8Array;
}

/**
 * Settings every git call starts with, above any config file: no file-system
 * monitor command, no hooks, no untracked cache written back. A config file
 * that names a command (a repository a sub-agent wrote, say) is never obeyed
 * for these.
 */
export const SAFE_CONFIG = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.untrackedCache=false",
  "-c",
  "diff.external=",
];

/**
 * Every git call peaks makes goes through here: no stdin, optional locks off
 * (a read never rewrites the index), no system config, SAFE_CONFIG first, and
 * a git that is missing or not allowed behaves as "outside a repository".
 */
export async function runGit(
  cwd: string,
  args: string[],
  options: GitOptions = {},
): Promise<GitResult> {
  try {
    const child = new Deno.Command("git", {
      args: [...SAFE_CONFIG, ...args],
      cwd,
      stdin: options.input ? "piped" : "null",
      stdout: "piped",
      stderr: options.stderr ? "piped" : "null",
      env: { GIT_OPTIONAL_LOCKS: "0", GIT_CONFIG_NOSYSTEM: "1", ...options.env },
    }).spawn();
    if (options.input) {
      const writer = child.stdin.getWriter();
      await writer.write(options.input).catch(() => {});
      await writer.close().catch(() => {});
    }
    const result = await child.output();
    const decoder = new TextDecoder();
    return {
      ok: result.success,
      code: result.code,
      out: decoder.decode(result.stdout),
      bytes: result.stdout,
      err: options.stderr ? decoder.decode(result.stderr) : "",
    };
  } catch {
    return {
      ok: false,
      code: -1,
      out: "",
      bytes: new Uint8Array(),
      err: "git could not be started",
    };
  }
}

function git(root: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  return runGit(root, args);
}

/** The nearest `.git` entry at or above `dir` (a checkout, worktree or submodule), if any. */
function findGitEntry(dir: string): { path: string; isDirectory: boolean } | null {
  let current = dir;
  while (true) {
    try {
      const path = join(current, ".git");
      return { path, isDirectory: Deno.lstatSync(path).isDirectory };
    } catch {
      const parent = dirname(current);
      if (parent === current) return null;
      current = parent;
    }
  }
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const REF_MAX = 4096;

/** A ref file's text, bounded and only from a regular file; "" for anything else. */
async function readRef(path: string, maxBytes?: number): Promise<string> {
  return (await readBoundedText(path, { maxBytes }).catch(() => undefined)) ?? "";
}

/**
 * Where a `.git` file (a linked worktree or a submodule) points: its own git
 * folder, which holds HEAD, and the common one, which holds the branches
 * (named by `commondir`; the folder itself for a submodule). Undefined for a
 * file that says anything else.
 */
async function linkedDirs(gitFile: string): Promise<GitDirs | undefined> {
  const gitdir = /^gitdir: (.+)$/.exec((await readRef(gitFile, REF_MAX)).trim())?.[1];
  if (!gitdir) return undefined;
  const own = resolve(dirname(gitFile), gitdir);
  const common = (await readRef(join(own, "commondir"), REF_MAX)).trim();
  return { own, common: common ? resolve(own, common) : own };
}

interface GitDirs {
  /** HEAD's folder. */
  own: string;
  /** The branches' folder (refs/heads, packed-refs). */
  common: string;
}

/**
 * HEAD read straight from the git folders (loose ref or packed-refs), which
 * saves starting git on every dispatch. Undefined when the layout is anything
 * else (reftable, an unexpected HEAD): then git itself answers. Only a few
 * bounded regular files are read, and only a SHA or a branch name comes out.
 */
async function readHeadFiles({ own, common }: GitDirs): Promise<GitHead | null | undefined> {
  try {
    if (await exists(join(common, "reftable")) || await exists(join(own, "reftable"))) {
      return undefined;
    }
    const head = (await readBoundedText(join(own, "HEAD"), { maxBytes: REF_MAX }))?.trim();
    if (head === undefined) return undefined;
    if (SHA.test(head)) return { head, branch: "HEAD" };
    const ref = /^ref: (refs\/heads\/[^\s]+)$/.exec(head)?.[1];
    if (!ref || ref.split("/").includes("..")) return undefined;
    const branch = ref.slice("refs/heads/".length);
    const loose = (await readRef(join(common, ...ref.split("/")), REF_MAX)).trim();
    if (SHA.test(loose)) return { head: loose, branch };
    const packed = await readRef(join(common, "packed-refs"));
    for (const line of packed.split("\n")) {
      const [sha, name] = line.trim().split(" ");
      if (name === ref && SHA.test(sha)) return { head: sha, branch };
    }
    return null; // a branch without commits yet
  } catch {
    return undefined;
  }
}

/** HEAD and branch of the repository at `root`; null outside a repository or before the first commit. */
export async function readGitHead(root: string): Promise<GitHead | null> {
  // Starting a process costs a few milliseconds on every dispatch; skip it where git has nothing to say.
  const entry = findGitEntry(root);
  if (!entry) return null;
  const dirs = entry.isDirectory
    ? { own: entry.path, common: entry.path }
    : await linkedDirs(entry.path).catch(() => undefined);
  const fromFiles = dirs && await readHeadFiles(dirs);
  if (fromFiles !== undefined) return fromFiles;
  const result = await git(root, ["rev-parse", "HEAD", "--abbrev-ref", "HEAD"]);
  if (!result.ok) return null;
  const [head, branch] = result.out.trim().split("\n");
  if (!/^[0-9a-f]{40,64}$/.test(head ?? "")) return null;
  return { head, branch: branch || "HEAD" };
}

export interface Commit {
  sha: string;
  subject: string;
}

export const COMMITS_SHOWN = 50;
/** A commit subject is shown up to this many characters (one reached megabytes). */
export const SUBJECT_MAX = 200;

function clip(subject: string): string {
  return subject.length > SUBJECT_MAX ? `${subject.slice(0, SUBJECT_MAX - 1)}…` : subject;
}

/**
 * Commits reachable from `until` (HEAD) but not from `since`, newest first (at
 * most COMMITS_SHOWN). Undefined when git cannot answer (the commit is gone, no repo).
 */
export async function commitsSince(
  root: string,
  since: string,
  until = "HEAD",
): Promise<Commit[] | undefined> {
  if (!/^[0-9a-f]{40,64}$/.test(since) || until.startsWith("-")) return undefined;
  const result = await git(root, [
    "log",
    `--max-count=${COMMITS_SHOWN}`,
    // git cuts the subject itself, so a subject of megabytes is never read whole.
    `--format=%H %<(${SUBJECT_MAX},trunc)%s`,
    `${since}..${until}`,
    "--",
  ]);
  if (!result.ok) return undefined;
  return result.out.split("\n").filter(Boolean).map((line) => {
    const space = line.indexOf(" ");
    return space === -1
      ? { sha: line, subject: "" }
      : { sha: line.slice(0, space), subject: clip(line.slice(space + 1).trimEnd()) };
  });
}

/**
 * Which of `names` (paths relative to `root`) are neither tracked nor
 * ignored by git; an untracked folder is reported once, as `name/`.
 * Undefined outside a checkout or when git cannot answer. Reads only.
 */
export async function untrackedPaths(root: string, names: string[]): Promise<string[] | undefined> {
  if (!(await findGitEntry(root))) return undefined;
  if (!names.length) return [];
  const result = await git(root, [
    "--literal-pathspecs",
    "ls-files",
    "-z",
    "--others",
    "--exclude-standard",
    "--directory",
    "--",
    ...names,
  ]);
  if (!result.ok) return undefined;
  return result.out.split("\0").filter(Boolean).sort();
}

/** Changes are listed up to this many; the rest is counted. */
export const CHANGES_SHOWN = 100;

/**
 * The working tree's changes outside `.peaks/`, new files included (`git diff` alone misses
 * them): porcelain lines such as ` M src/app.ts` and `?? src/new.ts`. Undefined outside a
 * checkout or when git cannot answer. Reads only.
 */
export async function workingTreeChanges(root: string): Promise<string[] | undefined> {
  if (!(await findGitEntry(root))) return undefined;
  const result = await git(root, [
    "status",
    "--porcelain",
    "--untracked-files=all",
    "--",
    ".",
    ":(exclude).peaks",
  ]);
  if (!result.ok) return undefined;
  return result.out.split("\n").filter((line) => line.trim() !== "");
}

/**
 * Which of `paths` (relative to `root`) differ from `base` (a commit; HEAD when null): changed,
 * added or deleted since it, committed or not, or new and untracked. Undefined outside a checkout
 * or when git cannot answer. Reads only.
 */
export async function changedSince(
  root: string,
  base: string | null,
  paths: string[],
): Promise<string[] | undefined> {
  if (!findGitEntry(root)) return undefined;
  if (!paths.length) return [];
  const from = base && /^[0-9a-f]{40,64}$/.test(base) ? base : "HEAD";
  const [tracked, untracked] = await Promise.all([
    git(root, [
      "--literal-pathspecs",
      "diff",
      "--name-only",
      "--relative",
      "-z",
      from,
      "--",
      ...paths,
    ]),
    untrackedPaths(root, paths),
  ]);
  if (untracked === undefined) return undefined;
  // Before the first commit there is nothing to differ from: every file is new.
  const changed = tracked.ok ? tracked.out.split("\0").filter(Boolean) : [];
  return [...new Set([...changed, ...untracked])].sort();
}
