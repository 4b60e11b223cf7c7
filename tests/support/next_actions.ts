/**
 * Runs the `peaks ...` command lines that envelopes hand out as nextActions,
 * split exactly as a POSIX shell splits what `commandLine` produced.
 */
import { type RunOptions, runPeaks, type RunResult } from "./cli.ts";
import { splitCommandLine } from "../../lib/infra/shell.ts";

/** Plain words and '...' quoting; any other shell syntax fails the test. */
export const shellWords = splitCommandLine;

/** The words after `peaks`; fails when the line is not a peaks command. */
export function peaksWords(line: string): string[] {
  const words = shellWords(line);
  if (words[0] !== "peaks") throw new Error(`not a peaks command: ${line}`);
  return words.slice(1);
}

/** Runs one nextAction with --json added (unless it already asks for JSON). */
export function runNextAction(line: string, options: RunOptions): Promise<RunResult> {
  const words = peaksWords(line);
  const json = words.includes("--json") || words.includes("--pretty") ? [] : ["--json"];
  return runPeaks([...words, ...json], options);
}

/** Runs each action in order; returns their results. */
export async function runActions(actions: string[], options: RunOptions): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const action of actions) results.push(await runNextAction(action, options));
  return results;
}
