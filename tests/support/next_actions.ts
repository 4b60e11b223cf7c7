/**
 * Runs the `peaks ...` command lines that envelopes hand out as nextActions,
 * split exactly as a POSIX shell splits what `commandLine` produced.
 */
import { type RunOptions, runPeaks, type RunResult } from "./cli.ts";

/** Plain words and '...' quoting; any other shell syntax fails the test. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unbalanced quote in ${line}`);
      current += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === "\\") {
      current += line[++i] ?? "";
      inWord = true;
    } else if (c === " ") {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else if (/[;&|<>`$()"]/.test(c)) {
      throw new Error(`unexpected shell syntax ${c} in ${line}`);
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

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
