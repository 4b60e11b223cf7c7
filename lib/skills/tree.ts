/**
 * Reading file trees for the skills commands: content hashes and a walk that
 * never follows a symlink (it reports them instead).
 */
import { isNotFound } from "../infra/errors.ts";
import { join } from "../infra/std.ts";

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export type EntryKind = "file" | "dir" | "symlink" | "other" | "missing";

export async function entryKind(path: string): Promise<EntryKind> {
  try {
    const info = await Deno.lstat(path);
    if (info.isSymlink) return "symlink";
    if (info.isFile) return "file";
    if (info.isDirectory) return "dir";
    return "other";
  } catch (error) {
    if (isNotFound(error)) return "missing";
    throw error;
  }
}

/** The hash of a regular file; undefined when it is missing (a symlink or folder is not a file). */
export async function hashFileAt(path: string): Promise<{ kind: EntryKind; sha256?: string }> {
  const kind = await entryKind(path);
  if (kind !== "file") return { kind };
  try {
    return { kind, sha256: await sha256Hex(await Deno.readFile(path)) };
  } catch (error) {
    // Removed between the two calls (another peaks run): it is missing now.
    if (isNotFound(error)) return { kind: "missing" };
    throw error;
  }
}

export interface WalkResult {
  /** Regular files, relative, with forward slashes. */
  files: string[];
  /** Symlinks and special files found (never followed), relative. */
  refused: string[];
  /** Sub-folders, relative. */
  dirs: string[];
}

/**
 * Lists a folder recursively without following symlinks. Names starting with
 * a dot are skipped (editor and OS litter such as `.DS_Store`).
 */
export async function walkTree(root: string, prefix = ""): Promise<WalkResult> {
  const out: WalkResult = { files: [], refused: [], dirs: [] };
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(root)) entries.push(entry);
  } catch (error) {
    if (isNotFound(error)) return out;
    throw error;
  }
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isSymlink) out.refused.push(rel);
    else if (entry.isDirectory) {
      out.dirs.push(rel);
      const inner = await walkTree(join(root, entry.name), rel);
      out.files.push(...inner.files);
      out.refused.push(...inner.refused);
      out.dirs.push(...inner.dirs);
    } else if (entry.isFile) out.files.push(rel);
    else out.refused.push(rel);
  }
  return out;
}

/** Joins a relative path with forward slashes onto a folder. */
export function resolveRel(root: string, rel: string): string {
  return join(root, ...rel.split("/"));
}

/** A relative path that stays where it is put: no `..`, no absolute, no odd characters. */
export function isSafeRelPath(rel: string): boolean {
  if (rel === "" || rel.length > 1024) return false;
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f\\:]/.test(rel) || rel.startsWith("/")) return false;
  return rel.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

/** The first folder between `root` and the file `rel` that is a symlink or a file, if any. */
export async function blockedParent(root: string, rel: string): Promise<string | undefined> {
  const parts = rel.split("/");
  for (let i = 1; i < parts.length; i++) {
    const sub = parts.slice(0, i).join("/");
    const kind = await entryKind(resolveRel(root, sub));
    if (kind === "missing") return undefined;
    if (kind !== "dir") return `${sub} is a ${kind === "symlink" ? "symlink" : "file"}`;
  }
  return undefined;
}
