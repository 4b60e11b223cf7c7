/**
 * The one guard between peaks and its state tree. The binary may read and
 * write anywhere, so this is the only thing that keeps state inside the
 * project: a path under a project's `.peaks` folder is used only when every
 * folder from the project root down to it is a real folder, not a symbolic
 * link and not a file. The root itself is the project's real path (resolved
 * once), so a tree of real folders below it cannot lead anywhere else. Every
 * state read, write, lock, move and delete in `lib/core/fs` runs this first;
 * it costs one lstat per folder level and loads nothing. The lstat is the
 * synchronous call: on the runtime's thread pool each await costs ~10x the
 * system call itself, and a guard runs several times per command.
 */
import { PeaksError } from "../errors.ts";
import { isNotFound } from "../errors.ts";
import { commandLine, peaksLine } from "../shell.ts";

const STATE_SEGMENT = /[\\/]\.peaks(?=[\\/]|$)/g;
const SEPARATOR = Deno.build.os === "windows" ? "\\" : "/";

export interface StateRoot {
  /** The project root (everything before the `.peaks` segment). */
  root: string;
  /** The `.peaks` folder itself. */
  peaks: string;
}

/**
 * The project root and `.peaks` folder a path lies in, or undefined for a path
 * outside any state tree. Identifiers never start with a dot, so the last
 * `.peaks` segment is the state folder.
 */
export function stateRootOf(path: string): StateRoot | undefined {
  let index = -1;
  for (const match of path.matchAll(STATE_SEGMENT)) index = match.index;
  if (index < 0) return undefined;
  return { root: path.slice(0, index) || SEPARATOR, peaks: path.slice(0, index + 7) };
}

function shown(state: StateRoot, path: string): string {
  const rel = path.slice(state.root.length).replace(/^[\\/]+/, "");
  return SEPARATOR === "/" ? rel : rel.split(SEPARATOR).join("/");
}

/** The commands that put a real folder back where a link or a file stood; nothing is deleted. */
function asideRepair(state: StateRoot, path: string, suffix: string): string[] {
  const repair = [commandLine(["mv", path, `${path}.${suffix}`])];
  const depth = shown(state, path).split("/").length;
  // .peaks, _runtime or _sub_agents moved aside: init recreates the workspace and its session.
  if (depth <= 2) repair.push(peaksLine(state.root, ["workspace", "init"]));
  return repair;
}

async function symlinkRefused(state: StateRoot, path: string): Promise<PeaksError> {
  const target = await Deno.readLink(path).catch(() => "?");
  const rel = shown(state, path);
  return new PeaksError(
    "SYMLINK_REFUSED",
    `${rel} is a symbolic link (to ${target}); peaks keeps its state in real folders inside the project and never reads or writes through a link. Move the link aside (its target is left as it is) and let peaks recreate the folder.`,
    {
      data: { path: rel, target, projectRoot: state.root },
      nextActions: asideRepair(state, path, "symlink"),
    },
  );
}

function notAFolder(state: StateRoot, path: string, info: Deno.FileInfo): PeaksError {
  const rel = shown(state, path);
  return new PeaksError(
    "NOT_A_DIRECTORY",
    `${rel} should be a folder of peaks state but is ${
      kindOf(info)
    }; move it aside and let peaks recreate the folder.`,
    {
      data: { path: rel, kind: kindOf(info), projectRoot: state.root },
      nextActions: asideRepair(state, path, "aside"),
    },
  );
}

/** What a file system entry is, in words for messages. */
export function kindOf(info: Deno.FileInfo): string {
  if (info.isSymlink) return "a symbolic link";
  if (info.isDirectory) return "a folder";
  if (info.isFile) return "a regular file";
  if (info.isFifo) return "a named pipe (FIFO)";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice || info.isBlockDevice) return "a device";
  return "a special file";
}

/**
 * Refuses a state path that is reached through a symbolic link or a
 * non-folder. Checks the folders from `.peaks` down to the path's parent
 * (with `self`, the path itself too); a missing folder ends the walk, since
 * what peaks creates below it is real. Paths outside a state tree pass.
 */
export async function confineState(path: string, options: { self?: boolean } = {}): Promise<void> {
  const state = stateRootOf(path);
  if (!state) return;
  const below = path.slice(state.peaks.length).split(/[\\/]+/).filter((s) => s !== "");
  if (below.includes("..")) {
    throw new PeaksError("PATH_OUTSIDE_PROJECT", `${path} leaves the peaks state folder.`, {
      data: { path },
    });
  }
  const folders = options.self ? below : below.slice(0, -1);
  let current = state.peaks;
  for (let i = 0;; i++) {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(current);
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    if (info.isSymlink) throw await symlinkRefused(state, current);
    if (!info.isDirectory) throw notAFolder(state, current, info);
    if (i === folders.length) return;
    current = `${current}${SEPARATOR}${folders[i]}`;
  }
}
