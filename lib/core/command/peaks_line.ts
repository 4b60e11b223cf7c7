/**
 * The command lines peaks hands back (nextActions, fixes, instructions):
 * always pinned to the project with `--project`, so they run from any cwd.
 */
import { commandLine } from "../shell.ts";

/** `peaks <words> --project <root> <after>`, quoted for a POSIX shell. */
export function peaksLine(
  root: string,
  words: readonly string[],
  after: readonly string[] = [],
): string {
  return commandLine(["peaks", ...words, ...projectArgs(root), ...after]);
}

/** `--project <root>`, for argument lists built up elsewhere (replays, spawned processes). */
export function projectArgs(root: string): string[] {
  return ["--project", root];
}
