/**
 * Applying a slice's patch to the main tree all-or-nothing. `git apply` on
 * the working files rewrites each file in place: a full disk (or a kill) half
 * way leaves a user's file truncated. Here the patch is applied to a
 * throw-away index holding the main tree as it is now (its objects are the
 * backup of every original), each resulting file is written next to its
 * target under a temporary name, and only when all of them are on disk are
 * they renamed over their targets (a rename needs no space). A failure
 * before that removes the temporary files: every file of the main tree is as
 * before.
 */
import { dirname, join } from "../infra/std.ts";
import { PeaksError } from "../infra/errors.ts";
import { runGit } from "../infra/git.ts";
import { randomHex } from "../infra/ids.ts";
import { workingTree } from "./_git.ts";
import { TMP_DIR } from "./create.ts";
import type { RepoPlace } from "./place.ts";

function unsafe(file: string, why: string): PeaksError {
  return new PeaksError(
    "SLICE_UNSAFE_PATH",
    `merge-back will not write ${file}: ${why}. Nothing was written; choose --keep main or --redo, or copy the file yourself.`,
    { exit: 3, data: { file } },
  );
}

/**
 * Where a merged file goes, checked without following anything: no `.git`,
 * `.` or `..` part, and every folder on the way a real folder (a symlink,
 * which another slice may have merged, is never written through).
 */
export async function safeTarget(toplevel: string, file: string): Promise<string> {
  const parts = file.split("/");
  if (parts.some((p) => p === "" || p === "." || p === ".." || p.toLowerCase() === ".git")) {
    throw unsafe(file, "its path leaves the tree or enters .git");
  }
  let dir = toplevel;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const info = await Deno.lstat(dir).catch(() => null);
    if (!info) break; // created below, one real folder at a time
    if (!info.isDirectory) throw unsafe(file, `${part} on its way is a symlink or a file`);
  }
  const info = await Deno.lstat(join(toplevel, ...parts)).catch(() => null);
  if (info?.isDirectory) throw unsafe(file, "a folder stands there");
  return join(toplevel, ...parts);
}

interface Entry {
  mode: string;
  sha: string;
}

/** Mode and blob of each of `files` in `tree` (one git call). */
async function entriesOf(
  toplevel: string,
  tree: string,
  files: string[],
): Promise<Map<string, Entry>> {
  const listed = await runGit(toplevel, [
    "--literal-pathspecs",
    "ls-tree",
    "-z",
    "--full-tree",
    tree,
    "--",
    ...files,
  ]);
  if (!listed.ok) throw new Error("git could not list the merged tree");
  const out = new Map<string, Entry>();
  for (const line of listed.out.split("\0").filter(Boolean)) {
    const tab = line.indexOf("\t");
    const [mode, type, sha] = line.slice(0, tab).split(" ");
    if (type !== "blob") throw unsafe(line.slice(tab + 1), `it is a ${type}, not a file`);
    out.set(line.slice(tab + 1), { mode, sha });
  }
  return out;
}

/** The merged tree: the patch applied to a throw-away index of the main tree as it is now. */
async function mergedTree(place: RepoPlace, patch: string, files: string[]) {
  const tmpDir = join(place.worktreesRoot, TMP_DIR);
  const before = await workingTree(place.toplevel, tmpDir);
  const index = join(tmpDir, `apply-${randomHex(8)}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    const read = await runGit(place.toplevel, ["read-tree", before], { env, stderr: true });
    if (!read.ok) return { ok: false as const, err: read.err.trim() };
    const include = files.map((f) => `--include=${f.replace(/[\\*?[]/g, "\\$&")}`);
    const apply = await runGit(place.toplevel, ["apply", "--cached", ...include, patch], {
      env,
      stderr: true,
    });
    if (!apply.ok) return { ok: false as const, err: apply.err.trim() };
    const tree = await runGit(place.toplevel, ["write-tree"], { env, stderr: true });
    if (!tree.ok) return { ok: false as const, err: tree.err.trim() };
    return { ok: true as const, before, after: tree.out.trim() };
  } finally {
    await Deno.remove(index).catch(() => {});
  }
}

/**
 * The bytes of each regular file's merged version, as the main tree holds
 * them (its filters and line endings applied), from one `cat-file --batch`.
 */
async function contentsOf(
  toplevel: string,
  files: string[],
  entries: Map<string, Entry>,
): Promise<Map<string, Uint8Array>> {
  const wanted = files.filter((f) => entries.get(f) && entries.get(f)!.mode !== "120000");
  const out = new Map<string, Uint8Array>();
  const batch = wanted.filter((f) => !f.includes("\n"));
  const input = new TextEncoder().encode(
    batch.map((f) => `${entries.get(f)!.sha} ${f}\n`).join(""),
  );
  const read = batch.length
    ? await runGit(toplevel, ["cat-file", "--batch", "--filters"], { input })
    : undefined;
  if (read && !read.ok) throw new Error("git could not read the merged files");
  let at = 0;
  const bytes = read?.bytes ?? new Uint8Array();
  for (const file of batch) {
    const eol = bytes.indexOf(10, at);
    const size = Number(new TextDecoder().decode(bytes.subarray(at, eol)).split(" ")[2]);
    if (eol === -1 || !Number.isSafeInteger(size)) throw new Error(`git could not read ${file}`);
    out.set(file, bytes.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size + 1;
  }
  for (const file of wanted.filter((f) => f.includes("\n"))) {
    const entry = entries.get(file)!;
    const one = await runGit(toplevel, ["cat-file", "--filters", `--path=${file}`, entry.sha]);
    if (!one.ok) throw new Error(`git could not read the merged ${file}`);
    out.set(file, one.bytes);
  }
  return out;
}

/** Writes each file's merged version under a temporary name beside it, recording [temp, target] pairs. */
async function writeTemps(
  place: RepoPlace,
  files: string[],
  entries: Map<string, Entry>,
  temps: Array<[string, string]>,
): Promise<void> {
  const contents = await contentsOf(place.toplevel, files, entries);
  for (const file of files) {
    const entry = entries.get(file);
    if (!entry) continue;
    const target = await safeTarget(place.toplevel, file);
    await Deno.mkdir(dirname(target), { recursive: true });
    const temp = `${target}.peaks-${randomHex(6)}.tmp`;
    if (entry.mode === "120000") {
      const link = await runGit(place.toplevel, ["cat-file", "blob", entry.sha]);
      if (!link.ok) throw new Error(`git could not read the merged ${file}`);
      temps.push([temp, target]);
      await Deno.symlink(new TextDecoder().decode(link.bytes), temp);
      continue;
    }
    const data = contents.get(file)!;
    temps.push([temp, target]);
    const mode = entry.mode === "100755" ? 0o755 : 0o644;
    const handle = await Deno.open(temp, { write: true, createNew: true, mode });
    try {
      let written = 0;
      while (written < data.length) written += await handle.write(data.subarray(written));
      await handle.syncData();
    } finally {
      handle.close();
    }
  }
}

/**
 * The new files a merge wrote, marked intent-to-add (`git add -N`): no content is staged, but
 * `git diff` shows them, and a later repair of them, where an untracked file would show nothing.
 * Ignored files stay as they are. A failure here changes nothing of the merge.
 */
async function intendToAdd(place: RepoPlace, files: string[]): Promise<void> {
  if (!files.length) return;
  const untracked = await runGit(place.toplevel, [
    "--literal-pathspecs",
    "ls-files",
    "-z",
    "--others",
    "--exclude-standard",
    "--",
    ...files,
  ]);
  const fresh = untracked.ok ? untracked.out.split("\0").filter(Boolean) : [];
  if (!fresh.length) return;
  await runGit(place.toplevel, ["--literal-pathspecs", "add", "--intent-to-add", "--", ...fresh]);
}

/**
 * Applies `patch` (limited to `files`) to the main tree's working files, all
 * of them or none. `ok: false` leaves every file as it was.
 */
export async function applyAtomically(
  place: RepoPlace,
  patch: string,
  files: string[],
): Promise<{ ok: boolean; err: string }> {
  const temps: Array<[string, string]> = [];
  try {
    const merged = await mergedTree(place, patch, files);
    if (!merged.ok) return { ok: false, err: merged.err || "the patch does not apply" };
    const entries = await entriesOf(place.toplevel, merged.after, files);
    await writeTemps(place, files, entries, temps);
    for (const [temp, target] of temps) await Deno.rename(temp, target);
    for (const file of files) {
      if (!entries.has(file)) {
        await Deno.remove(join(place.toplevel, ...file.split("/"))).catch(() => {});
      }
    }
    await intendToAdd(place, files.filter((f) => entries.has(f)));
    return { ok: true, err: "" };
  } catch (error) {
    for (const [temp] of temps) await Deno.remove(temp).catch(() => {});
    return { ok: false, err: error instanceof Error ? error.message : String(error) };
  }
}
