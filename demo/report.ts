/**
 * Pieces of the demo's human output that its tests read: the product change without peaks' own
 * files, member lines with measured durations, hints without an ETA that would mislead, and the
 * command that removes the demo's folder.
 */
import { commandLine } from "../lib/infra/shell.ts";

/**
 * Files peaks writes into a project itself: its state folder, the standards block files (the
 * sample project has neither CLAUDE.md nor AGENTS.md, so peaks creates them), the status line
 * setting and installed skills.
 */
const PEAKS_OWNED = [
  /^\.peaks\//,
  /^CLAUDE\.md$/,
  /^AGENTS\.md$/,
  /^\.claude\/settings(\.local)?\.json$/,
  /^\.(claude|agents|trae)\/skills\//,
];

export function isPeaksOwned(path: string): boolean {
  return PEAKS_OWNED.some((pattern) => pattern.test(path));
}

/**
 * `git status --porcelain --untracked-files=all` split into the product change (what the
 * sub-agents left for review) and peaks' own files.
 */
export function splitChange(porcelain: string): { product: string[]; peaks: string[] } {
  const product: string[] = [];
  const peaks: string[] = [];
  for (const line of porcelain.split("\n")) {
    if (line.trim() === "") continue;
    const path = line.slice(3).replace(/^.* -> /, "").replace(/^"(.*)"$/, "$1");
    (isPeaksOwned(path) ? peaks : product).push(line);
  }
  return { product, peaks };
}

/** peaks' own files as a short list: the state folder once, the rest by name. */
export function peaksFilesSummary(lines: string[]): string {
  const paths = lines.map((line) => line.slice(3));
  const names = new Set(paths.map((path) => (path.startsWith(".peaks/") ? ".peaks/" : path)));
  return [...names].sort().join(", ");
}

/**
 * A dispatch hint without its ETA: the scripted stand-in finishes in seconds, so the host's
 * estimate for a real sub-agent would mislead; the member lines show what each one took.
 */
export function withoutEta(line: string): string {
  return line.replace(/ \(ETA ~\d+s\)/, "");
}

export function memberLine(role: string, status: string, seconds: number | null): string {
  return `↳ ${role} ${status}${seconds === null ? "" : ` in ${seconds.toFixed(1)} s`}`;
}

/** The shell command that removes the demo's folder. */
export function removalCommand(base: string): string {
  return commandLine(["rm", "-rf", base]);
}

/** Colour only on a terminal and never when NO_COLOR is set to anything but "" (no-color.org). */
export function useColor(terminal: boolean, noColor: string | undefined): boolean {
  return terminal && !noColor;
}

/**
 * Where `name` is on `path` (a PATH value), or undefined: the demo checks a real vendor CLI
 * before it starts instead of failing at the first dispatch.
 */
export async function onPath(
  name: string,
  path: string,
  windows = false,
): Promise<string | undefined> {
  const sep = windows ? ";" : ":";
  const exts = windows ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of path.split(sep).filter(Boolean)) {
    for (const ext of exts) {
      const candidate = `${dir}${windows ? "\\" : "/"}${name}${ext}`;
      try {
        const info = await Deno.stat(candidate);
        if (info.isFile && (windows || ((info.mode ?? 0o111) & 0o111))) return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
