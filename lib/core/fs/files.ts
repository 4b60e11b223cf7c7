/**
 * The small file questions every layer asks. One definition each, so "is it
 * there" means the same thing everywhere: anything that cannot be read
 * counts as absent.
 */
import { isNotFound } from "../errors.ts";

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
