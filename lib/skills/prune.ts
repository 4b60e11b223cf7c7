/** Removing the folders peaks created, once they are empty, and only those. */
import { isNotFound } from "../infra/errors.ts";
import { join } from "../infra/std.ts";
import type { InstallRoot } from "./agents.ts";

async function removeIfEmpty(path: string): Promise<boolean> {
  try {
    if (!(await Deno.lstat(path)).isDirectory) return false;
    for await (const _ of Deno.readDir(path)) return false;
    await Deno.remove(path);
    return true;
  } catch (error) {
    if (isNotFound(error)) return true;
    if (error instanceof Deno.errors.NotADirectory) return false;
    // Something was just written into it (another peaks run): it stays.
    if (await Deno.lstat(path).then(() => true, () => false)) return false;
    throw error;
  }
}

/**
 * After a file inside the skills folder is deleted, removes its parent folders
 * (deepest first, never the skills folder itself) that peaks created and that
 * are now empty. `created` holds base-relative paths and is updated.
 */
export async function pruneCreatedDirs(
  root: InstallRoot,
  rel: string,
  created: Set<string>,
): Promise<void> {
  const rootRel = root.segments.join("/");
  const parts = rel.split("/");
  for (let i = parts.length - 1; i >= 1; i--) {
    const key = `${rootRel}/${parts.slice(0, i).join("/")}`;
    if (!created.has(key)) return;
    if (!(await removeIfEmpty(join(root.base, ...key.split("/"))))) return;
    created.delete(key);
  }
}

/** Removes every recorded folder that is empty, deepest first (the skills folder and its parents included). */
export async function pruneAllCreated(root: InstallRoot, created: Set<string>): Promise<void> {
  const rootRel = root.segments.join("/");
  const ordered = [...created].sort((a, b) => b.split("/").length - a.split("/").length);
  for (const key of ordered) {
    // Only folders on the way to the skills folder or inside it are ever touched.
    const related = key === rootRel || rootRel.startsWith(`${key}/`) ||
      key.startsWith(`${rootRel}/`);
    if (!related) continue;
    if (await removeIfEmpty(join(root.base, ...key.split("/")))) created.delete(key);
  }
}
