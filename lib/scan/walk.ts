/**
 * A bounded, deterministic walk of the project tree for the scan. It never
 * follows symlinks (so it cannot leave the project), skips dependency and
 * build folders, and stops at a file-count, depth and time cap, saying so.
 */
import { join } from "../infra/std.ts";
import { isNotFound } from "../infra/errors.ts";

/**
 * Files at the project root that `peaks standards` writes for agents: not the
 * project's code, and counting them would change the scan after every standards run.
 */
export const SKIP_ROOT_FILES = new Set(["CLAUDE.md", "AGENTS.md"]);

/** Folders that hold dependencies, build output, caches or peaks' own state. */
export const SKIP_DIRS = new Set([
  "node_modules",
  ".git",
  ".hg",
  ".svn",
  "dist",
  "build",
  "out",
  "vendor",
  ".peaks",
  ".next",
  ".nuxt",
  ".output",
  ".svelte-kit",
  ".umi",
  ".umi-production",
  ".turbo",
  ".cache",
  ".parcel-cache",
  ".yarn",
  ".pnpm-store",
  "bower_components",
  "coverage",
  "storybook-static",
  "target",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".gradle",
  ".idea",
  ".vscode",
]);

export const DEFAULT_MAX_FILES = 20_000;
export const DEFAULT_MAX_DEPTH = 12;
/** A safety net for very slow disks; the count caps normally stop the walk first. */
export const DEFAULT_TIME_BUDGET_MS = 3_000;

export interface WalkOptions {
  maxFiles?: number;
  maxDepth?: number;
  timeBudgetMs?: number;
}

export interface WalkResult {
  /** Project-relative paths with forward slashes, in breadth-first, name-sorted order. */
  files: string[];
  dirs: string[];
  truncated: boolean;
  truncatedBy: "files" | "depth" | "time" | null;
  symlinksSkipped: number;
  maxFiles: number;
  maxDepth: number;
}

export async function walkProject(root: string, options: WalkOptions = {}): Promise<WalkResult> {
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const deadline = performance.now() + (options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS);
  const files: string[] = [];
  const dirs: string[] = [];
  let stoppedBy: "files" | "time" | null = null;
  let depthCapped = false;
  let symlinksSkipped = 0;
  // Breadth-first so manifests near the root are always seen before a cap hits.
  let level: string[] = [""];
  for (let depth = 0; level.length > 0 && stoppedBy === null; depth++) {
    const next: string[] = [];
    for (const rel of level) {
      if (performance.now() > deadline) {
        stoppedBy = "time";
        break;
      }
      const entries: Deno.DirEntry[] = [];
      try {
        for await (const entry of Deno.readDir(rel ? join(root, rel) : root)) entries.push(entry);
      } catch (error) {
        if (isNotFound(error) || error instanceof Deno.errors.PermissionDenied) continue;
        throw error;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isSymlink) {
          symlinksSkipped++;
        } else if (entry.isDirectory) {
          if (SKIP_DIRS.has(entry.name)) continue;
          if (depth + 1 >= maxDepth) {
            depthCapped = true;
            continue;
          }
          dirs.push(path);
          next.push(path);
        } else if (entry.isFile) {
          if (!rel && SKIP_ROOT_FILES.has(entry.name)) continue;
          if (files.length >= maxFiles) {
            stoppedBy = "files";
            break;
          }
          files.push(path);
        }
      }
      if (stoppedBy) break;
    }
    level = next;
  }
  const truncatedBy = stoppedBy ?? (depthCapped ? "depth" : null);
  return {
    files,
    dirs,
    truncated: truncatedBy !== null,
    truncatedBy,
    symlinksSkipped,
    maxFiles,
    maxDepth,
  };
}

const MAX_READ_BYTES = 256 * 1024;

/**
 * Reads a project file as text, at most `maxBytes`. Symlinks and missing
 * files read as undefined: the scan only looks at what is really inside.
 */
export async function readProjectText(
  root: string,
  rel: string,
  maxBytes = MAX_READ_BYTES,
): Promise<string | undefined> {
  const path = join(root, ...rel.split("/"));
  let file: Deno.FsFile | undefined;
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile) return undefined;
    file = await Deno.open(path, { read: true });
    const buffer = new Uint8Array(Math.min(maxBytes, info.size));
    let filled = 0;
    while (filled < buffer.length) {
      const n = await file.read(buffer.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    return new TextDecoder().decode(buffer.subarray(0, filled));
  } catch (error) {
    if (isNotFound(error) || error instanceof Deno.errors.PermissionDenied) return undefined;
    throw error;
  } finally {
    file?.close();
  }
}
