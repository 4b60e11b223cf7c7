/**
 * Safety around a skills folder: it must be reached without symlinks from
 * its trusted base (the project root or the home folder), peaks records the
 * folders it creates, and writers take turns through a lock file inside it.
 */
import { isNotFound, PeaksError } from "../infra/errors.ts";
import { DEFAULT_LOCK_TIMEOUT_MS } from "../infra/fs/lock.ts";
import type { Env } from "../infra/command/ctx.ts";
import { join } from "../infra/std.ts";
import type { InstallRoot } from "./agents.ts";
import { entryKind } from "./tree.ts";
import { sleep } from "../infra/timer.ts";

export const LOCK_NAME = ".peaks-skills.lock";

function symlinkRefused(path: string, what: string): PeaksError {
  return new PeaksError(
    "SYMLINK_REFUSED",
    `Refusing to use ${what} ${path}: it is a symlink, and peaks never writes through symlinks. Replace it with a real folder (or install with the other --scope).`,
    { data: { path } },
  );
}

/**
 * Checks the path from the base to the skills folder. Returns the base-relative
 * folders that do not exist yet (shallowest first); throws on a symlink or a file
 * in the way.
 */
export async function inspectRoot(
  root: InstallRoot,
): Promise<{ exists: boolean; missing: string[] }> {
  const missing: string[] = [];
  for (let i = 1; i <= root.segments.length; i++) {
    const rel = root.segments.slice(0, i).join("/");
    const path = join(root.base, ...root.segments.slice(0, i));
    if (missing.length) {
      missing.push(rel);
      continue;
    }
    const kind = await entryKind(path);
    if (kind === "symlink") throw symlinkRefused(path, "the skills folder path");
    if (kind === "missing") missing.push(rel);
    else if (kind !== "dir") {
      throw new PeaksError(
        "SKILLS_DIR_BLOCKED",
        `${path} is in the way of the skills folder ${root.path}: it is not a folder. Move it away and retry.`,
        { data: { path } },
      );
    }
  }
  return { exists: missing.length === 0, missing };
}

/** Creates the skills folder; returns the base-relative folders this call created. */
export async function ensureRoot(root: InstallRoot): Promise<string[]> {
  const created: string[] = [];
  // A concurrent uninstall may remove an emptied parent between two mkdirs: start over then.
  for (let attempt = 0; attempt < 20; attempt++) {
    const { missing } = await inspectRoot(root);
    if (missing.length === 0) return created;
    try {
      for (const rel of missing) {
        try {
          await Deno.mkdir(join(root.base, ...rel.split("/")));
          created.push(rel);
        } catch (error) {
          if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
        }
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  await inspectRoot(root);
  return created;
}

/** A `prepare` for commands that never create the folder: go on only while it exists. */
export function present(root: InstallRoot): () => Promise<boolean> {
  return async () => (await inspectRoot(root)).exists;
}

function timeoutFrom(env: Env): number {
  const parsed = Number(env.get("PEAKS_LOCK_TIMEOUT_MS"));
  return Number.isFinite(parsed) && parsed > 0 ? parsed : DEFAULT_LOCK_TIMEOUT_MS;
}

/**
 * Runs `fn` holding an OS lock on `<skills folder>/.peaks-skills.lock`.
 * `prepare` runs before each attempt and says whether the folder is there
 * (install creates it; the others give up, returning undefined, when it is
 * gone). The holder deletes the lock file before releasing it; a waiter that
 * then gets the lock on the deleted file notices (the path no longer names
 * its file) and tries again, so two holders never overlap.
 */
export async function withRootLock<T>(
  rootPath: string,
  env: Env,
  prepare: () => Promise<boolean>,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  const lockPath = join(rootPath, LOCK_NAME);
  const timeoutMs = timeoutFrom(env);
  const deadline = performance.now() + timeoutMs;
  let delay = 1;
  const timedOut = () =>
    new PeaksError(
      "LOCK_TIMEOUT",
      `Timed out after ${timeoutMs} ms waiting for the lock on ${rootPath}; another peaks skills command is still running there. Retry.`,
      { data: { path: rootPath, lockPath, timeoutMs } },
    );
  while (true) {
    if (!(await prepare())) return undefined;
    if ((await entryKind(lockPath)) === "symlink") throw symlinkRefused(lockPath, "the lock file");
    let file: Deno.FsFile;
    try {
      file = await Deno.open(lockPath, { read: true, write: true, create: true });
    } catch (error) {
      // An uninstall just removed the emptied folder: prepare again.
      if (!isNotFound(error)) throw error;
      if (performance.now() >= deadline) throw timedOut();
      continue;
    }
    try {
      while (!(await file.tryLock(true))) {
        if (performance.now() >= deadline) throw timedOut();
        await sleep(delay + Math.random() * delay);
        delay = Math.min(delay * 2, 25);
      }
      const held = await file.stat();
      const current = await Deno.lstat(lockPath).catch(() => undefined);
      if (!current || (held.ino !== null && current.ino !== held.ino)) continue;
      try {
        return await fn();
      } finally {
        // Deleted while still held, so no lock file is left behind in the user's folder.
        await Deno.remove(lockPath).catch(() => {});
      }
    } finally {
      file.close();
    }
  }
}
