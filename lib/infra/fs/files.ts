/**
 * Files on disk: written so a reader (or a crash) never sees half of one, read
 * with a size bound and only when they are regular files, and the small
 * questions every layer asks, one definition each. Every path under a
 * project's `.peaks` passes `confineState` first (see confine.ts), so no state
 * read, write, move or delete follows a link out of the project.
 */
import { dirname } from "../std.ts";
import { randomHex } from "../ids.ts";
import { isAlreadyExists, isNotFound, PeaksError } from "../errors.ts";
import { commandLine } from "../shell.ts";
import { confineState, kindOf, stateRootOf } from "./confine.ts";

/** True when something is at `path`; a dangling symlink counts, since it occupies the name. */
export function exists(path: string): Promise<boolean> {
  try {
    Deno.lstatSync(path);
    return Promise.resolve(true);
  } catch {
    return Promise.resolve(false);
  }
}

/** True for a directory; `lstat: true` refuses a symlink to one. */
export function isDirectory(
  path: string,
  options: { lstat?: boolean } = {},
): Promise<boolean> {
  try {
    return Promise.resolve(
      (options.lstat ? Deno.lstatSync(path) : Deno.statSync(path)).isDirectory,
    );
  } catch {
    return Promise.resolve(false);
  }
}

/** True for a regular file; a symlink to one counts unless `lstat: true`. */
export function isFile(path: string, options: { lstat?: boolean } = {}): Promise<boolean> {
  try {
    return Promise.resolve((options.lstat ? Deno.lstatSync(path) : Deno.statSync(path)).isFile);
  } catch {
    return Promise.resolve(false);
  }
}

/** Default bound on one read of a state or project file. */
export const READ_MAX_BYTES = 8 * 1024 * 1024;

export type RefusalKind = "symlink" | "special" | "too-large" | "denied";

/**
 * A file peaks will not read: a symbolic link (state files), anything but a
 * regular file (a FIFO would block, a device never ends), one over the size
 * bound, or one the operating system refuses. Readers turn it into their own
 * error (RECORD_UNREADABLE with a repair) or skip the file.
 */
export class FileRefused extends Error {
  constructor(readonly path: string, readonly kind: RefusalKind, readonly reason: string) {
    super(`${path}: ${reason}`);
    this.name = "FileRefused";
  }

  /** The command that makes the file readable again without losing it, when there is one. */
  get repair(): string | undefined {
    return this.kind === "denied" ? commandLine(["chmod", "u+rw", this.path]) : undefined;
  }
}

function isDenied(error: unknown): boolean {
  return error instanceof Deno.errors.PermissionDenied ||
    (error instanceof Error && /os error 13\b/.test(error.message));
}

export interface ReadBounds {
  /** At most this many bytes (default READ_MAX_BYTES). */
  maxBytes?: number;
  /** Outside a state tree, follow a symbolic link to a regular file (CLAUDE.md -> AGENTS.md). */
  follow?: boolean;
}

function checkKind(path: string, info: Deno.FileInfo, maxBytes: number): void {
  if (!info.isFile) {
    const kind = info.isSymlink ? "symlink" : "special";
    throw new FileRefused(path, kind, `it is ${kindOf(info)}, not a regular file`);
  }
  if (info.size > maxBytes) {
    throw new FileRefused(
      path,
      "too-large",
      `it is ${info.size} bytes, over the ${maxBytes}-byte bound`,
    );
  }
}

/**
 * Reads to the end, refusing past `maxBytes`. The buffer fits the size the
 * handle reported plus one byte (a small file no longer costs a 256 KB
 * buffer), so a whole file is one read that fills it and one that finds the end.
 */
function readUpTo(file: Deno.FsFile, path: string, maxBytes: number, size: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(Math.min(maxBytes, Math.max(size, 4096), 256 * 1024) + 1);
  while (true) {
    const n = file.readSync(buffer);
    if (n === null) break;
    total += n;
    if (total > maxBytes) {
      throw new FileRefused(path, "too-large", `it grew past the ${maxBytes}-byte bound`);
    }
    chunks.push(buffer.slice(0, n));
  }
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.length;
  }
  return all;
}

/**
 * The bytes of a regular file, at most `maxBytes` of them; undefined when it
 * does not exist. The entry is checked with lstat before it is opened (a FIFO
 * is never opened, so it cannot block) and again on the open handle.
 * Throws FileRefused for anything else.
 */
export async function readBoundedFile(
  path: string,
  bounds: ReadBounds = {},
): Promise<Uint8Array | undefined> {
  const maxBytes = bounds.maxBytes ?? READ_MAX_BYTES;
  await confineState(path);
  const follow = bounds.follow === true && stateRootOf(path) === undefined;
  let info: Deno.FileInfo;
  try {
    info = follow ? Deno.statSync(path) : Deno.lstatSync(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    if (isDenied(error)) throw new FileRefused(path, "denied", "the operating system refused it");
    throw error;
  }
  checkKind(path, info, maxBytes);
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    if (isDenied(error)) {
      throw new FileRefused(path, "denied", "the operating system refused to read it");
    }
    throw error;
  }
  try {
    // Replaced by a rename in between is fine (a newer version); anything but a file is not.
    const opened = file.statSync();
    checkKind(path, opened, maxBytes);
    return readUpTo(file, path, maxBytes, opened.size);
  } finally {
    file.close();
  }
}

/**
 * Runs `read` unless `path` is plainly absent: a hot command skips loading a
 * reader's modules for a file that is not there. The state guard runs first,
 * as in every reader, so a hostile tree is refused the same way.
 */
export async function whenPresent<T>(
  path: string,
  read: () => Promise<T>,
): Promise<T | undefined> {
  await confineState(path);
  try {
    Deno.lstatSync(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
  }
  return await read();
}

/** The file's text (bounded, regular files only), or undefined when it does not exist. */
export async function readBoundedText(
  path: string,
  bounds: ReadBounds = {},
): Promise<string | undefined> {
  const bytes = await readBoundedFile(path, bounds);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/** The file's text, or undefined when it does not exist (bounded; a symlink outside state is followed). */
export function readIfPresent(path: string): Promise<string | undefined> {
  return readBoundedText(path, { follow: true });
}

/** The file's permission bits, so a rewrite keeps them; undefined when missing. */
export function fileMode(path: string): Promise<number | undefined> {
  try {
    return Promise.resolve(Deno.statSync(path).mode ?? undefined);
  } catch (error) {
    return isNotFound(error) ? Promise.resolve(undefined) : Promise.reject(error);
  }
}

/** The entries of a folder (none when it is missing); a state folder is confined first. */
export async function listDir(path: string): Promise<Deno.DirEntry[]> {
  await confineState(path, { self: true });
  const entries: Deno.DirEntry[] = [];
  try {
    for (const entry of Deno.readDirSync(path)) entries.push(entry);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  return entries;
}

/** Creates a folder and its parents; under `.peaks` only through real folders. */
export async function ensureDir(path: string): Promise<void> {
  await confineState(path, { self: true });
  Deno.mkdirSync(path, { recursive: true });
}

/** Removes a file (or, with `recursive`, a folder); a missing one is fine. */
export async function removePath(path: string, options: { recursive?: boolean } = {}) {
  await confineState(path);
  try {
    Deno.removeSync(path, options);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Moves a file or folder, creating the target's folder; both ends are confined. */
export async function movePath(from: string, to: string): Promise<void> {
  await confineState(from);
  await ensureDir(dirname(to));
  await confineState(to);
  Deno.renameSync(from, to);
}

const encoder = new TextEncoder();

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // already gone, or never made
  }
}

/** A write never replaces a folder or a special file standing at the target's name. */
function checkTarget(path: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  if (info.isFile || info.isSymlink) return;
  throw new PeaksError(
    "NOT_A_REGULAR_FILE",
    `Refusing to write ${path}: it is ${kindOf(info)}. Move it aside first.`,
    { data: { path }, nextActions: [commandLine(["mv", path, `${path}.aside`])] },
  );
}

async function writeTemp(path: string, data: string | Uint8Array, mode?: number): Promise<string> {
  await ensureDir(dirname(path));
  checkTarget(path);
  const temp = `${path}.${randomHex(8)}.tmp`;
  const file = Deno.openSync(temp, { write: true, createNew: true, mode });
  try {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    let written = 0;
    while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    file.syncDataSync();
  } catch (error) {
    file.close();
    removeQuietly(temp);
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
    Deno.renameSync(temp, path);
  } catch (error) {
    removeQuietly(temp);
    throw error;
  }
}

/** Stored JSON is bounded: past this a write is refused rather than filling the disk. */
export const JSON_WRITE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Writes JSON atomically, compact (indentation grows with nesting, so pretty
 * printing let a small deep value become megabytes); `pretty` is for the
 * few files people edit by hand (preferences, the skills manifest).
 */
export function writeJsonAtomic(
  path: string,
  value: unknown,
  options: { pretty?: boolean } = {},
): Promise<void> {
  const text = `${options.pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`;
  if (text.length > JSON_WRITE_MAX_BYTES) {
    throw new PeaksError(
      "STATE_TOO_LARGE",
      `Refusing to write ${path}: ${text.length} characters is over the ${JSON_WRITE_MAX_BYTES}-byte bound for a state file.`,
      { data: { path, size: text.length, max: JSON_WRITE_MAX_BYTES } },
    );
  }
  return writeFileAtomic(path, text);
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
    Deno.linkSync(temp, path);
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
    removeQuietly(temp);
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
