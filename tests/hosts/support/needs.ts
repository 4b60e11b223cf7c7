/**
 * Which pinned host CLIs a run of the host suite needs installed up front. A test file needs
 * each host it names (its id in quotes, or its adapter constant: `"gemini"`, `GEMINI`); a file
 * that names none (it walks every pinned host) or a folder needs them all. A run narrowed only by
 * `--filter` installs none up front: the sandbox installs a host when a test first asks for it.
 */
import { type HostId, PINNED } from "./install.ts";

export function hostsNamedIn(text: string): HostId[] {
  const ids = Object.keys(PINNED) as HostId[];
  const named = ids.filter((id) =>
    text.includes(`"${id}"`) || new RegExp(`\\b${id.toUpperCase()}\\b`).test(text)
  );
  return named.length ? named : ids;
}

/**
 * The hosts to install before `deno test` runs: `files` are the paths given (empty: the whole
 * suite), `read` returns a file's text or undefined for a folder, `filtered` says --filter was given.
 */
export async function hostsToInstall(
  files: string[],
  filtered: boolean,
  read: (path: string) => Promise<string | undefined>,
): Promise<HostId[]> {
  const ids = Object.keys(PINNED) as HostId[];
  if (!files.length) return filtered ? [] : ids;
  const needed = new Set<HostId>();
  for (const file of files) {
    const text = await read(file);
    for (const id of text === undefined ? ids : hostsNamedIn(text)) needed.add(id);
  }
  return ids.filter((id) => needed.has(id));
}
