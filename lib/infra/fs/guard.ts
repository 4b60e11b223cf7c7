import { dirname, isAbsolute, relative, resolve } from "../std.ts";
import { isNotFound, PeaksError, usageError } from "../errors.ts";
import { printable } from "../ids.ts";

export interface GuardOptions {
  /** Flag the path came from, named in the error. */
  flag: string;
  /** Refuse when the path does not exist. */
  mustExist?: boolean;
}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (!climbsOut(rel) && !isAbsolute(rel));
}

/** The real path of the longest existing prefix of `path`, plus the rest joined back. */
function realPrefix(path: string): string {
  const pending: string[] = [];
  let current = path;
  while (true) {
    try {
      const real = Deno.realPathSync(current);
      return pending.length ? resolve(real, ...pending.reverse()) : real;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const parent = dirname(current);
      if (parent === current) return path;
      pending.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
      current = parent;
    }
  }
}

/**
 * Resolves a path taken from a flag against a trusted root (never a root
 * derived from the path itself). Refuses `..` segments, absolute paths outside
 * the root, and symlinks whose target leaves it. Returns the absolute path.
 */
export function guardPath(
  root: string,
  base: string,
  raw: string,
  options: GuardOptions,
): Promise<string> {
  try {
    return Promise.resolve(guardPathNow(root, base, raw, options));
  } catch (error) {
    return Promise.reject(error);
  }
}

function guardPathNow(root: string, base: string, raw: string, options: GuardOptions): string {
  const reject = (why: string) =>
    usageError(
      "PATH_OUTSIDE_PROJECT",
      `--${options.flag} ${
        JSON.stringify(printable(raw))
      } ${why}; paths must stay inside the project ${root}.`,
      { data: { flag: options.flag, projectRoot: root } },
    );
  // deno-lint-ignore no-control-regex
  if (raw === "" || /[\u0000-\u001f]/.test(raw)) {
    throw usageError(
      "INVALID_FLAG_VALUE",
      `--${options.flag} needs a file path without control characters.`,
      { data: { flag: options.flag } },
    );
  }
  if (raw.split(/[\\/]+/).includes("..")) throw reject("contains a '..' segment");
  const lexical = isAbsolute(raw) ? resolve(raw) : resolve(base, raw);
  if (!inside(root, lexical)) throw reject("is outside the project");
  const real = realPrefix(lexical);
  if (!inside(root, real)) {
    throw reject("resolves through a symlink to a place outside the project");
  }
  if (options.mustExist) {
    try {
      Deno.statSync(real);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      throw usageError("FILE_NOT_FOUND", `--${options.flag}: ${lexical} does not exist.`, {
        data: { flag: options.flag, path: lexical },
      });
    }
  }
  return lexical;
}

/** Refuses to write a file that is a symlink (settings files, standards files). */
export function assertNotSymlink(path: string, what: string): void {
  try {
    const info = Deno.lstatSync(path);
    if (info.isSymlink) {
      throw new PeaksError(
        "SYMLINK_REFUSED",
        `Refusing to write ${what} at ${path}: it is a symlink. Replace it with a regular file first.`,
        { data: { path } },
      );
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** True when a relative path climbs out (`..` or `../…`), not for names such as `..notes.md`. */
export function climbsOut(rel: string): boolean {
  return rel === ".." || rel.startsWith("../") || rel.startsWith("..\\");
}
