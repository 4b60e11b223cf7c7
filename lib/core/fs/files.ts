/**
 * Files on disk: written so a reader (or a crash) never sees half of one, and
 * the small questions every layer asks, one definition each, so "is it there"
 * means the same thing everywhere (anything that cannot be read counts as absent).
 */
import { dirname } from "../std.ts";
import { randomHex } from "../ids.ts";
import { isAlreadyExists, isNotFound } from "../errors.ts";

/** True when something is at `path`; a dangling symlink counts, since it occupies the name. */
export async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** True for a directory; `lstat: true` refuses a symlink to one. */
export async function isDirectory(
  path: string,
  options: { lstat?: boolean } = {},
): Promise<boolean> {
  const info = options.lstat ? Deno.lstat(path) : Deno.stat(path);
  return await info.then((i) => i.isDirectory, () => false);
}

/** True for a regular file (a symlink to one counts). */
export async function isFile(path: string): Promise<boolean> {
  return await Deno.stat(path).then((i) => i.isFile, () => false);
}

/** The file's text, or undefined when it does not exist. */
export async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** The file's permission bits, so a rewrite keeps them; undefined when missing. */
export async function fileMode(path: string): Promise<number | undefined> {
  try {
    return (await Deno.stat(path)).mode ?? undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const encoder = new TextEncoder();

async function writeTemp(path: string, data: string | Uint8Array, mode?: number): Promise<string> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${randomHex(8)}.tmp`;
  const file = await Deno.open(temp, { write: true, createNew: true, mode });
  try {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.syncData();
  } catch (error) {
    file.close();
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  file.close();
  return temp;
}

/**
 * Replaces `path` with `data` so that a reader (or a crash) only ever sees the
 * old or the new content: write a temp file in the same directory, sync it,
 * rename it over the target.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  const temp = await writeTemp(path, data, options.mode);
  try {
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

export function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  return writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Creates `path` with its full content, failing (returns false) when it
 * already exists: the complete temp file is hard-linked into place, so the
 * name never points at a partial file.
 */
export async function createFileExclusive(
  path: string,
  data: string | Uint8Array,
): Promise<boolean> {
  const temp = await writeTemp(path, data);
  try {
    await Deno.link(temp, path);
    return true;
  } catch (error) {
    if (isAlreadyExists(error)) return false;
    // Filesystems without hard links: exclusive create, then rename-free write.
    if (
      error instanceof Deno.errors.NotSupported || error instanceof Deno.errors.PermissionDenied
    ) {
      return await createByOpen(path, data);
    }
    throw error;
  } finally {
    await Deno.remove(temp).catch(() => {});
  }
}

async function createByOpen(path: string, data: string | Uint8Array): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { write: true, createNew: true });
  } catch (error) {
    if (isAlreadyExists(error)) return false;
    throw error;
  }
  try {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.syncData();
  } finally {
    file.close();
  }
  return true;
}
