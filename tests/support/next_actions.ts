/** Runs the `peaks ...` command lines that envelopes hand out as nextActions. */
import { type RunOptions, runPeaks, type RunResult } from "./cli.ts";

/** Splits a POSIX command line as `commandLine` quotes it (bare words and '...' strings). */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated quote in: ${line}`);
      current += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (c === " ") {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** Runs one nextAction (it must start with `peaks`) with --json added. */
export function runNextAction(line: string, options: RunOptions): Promise<RunResult> {
  const words = splitCommand(line);
  if (words[0] !== "peaks") throw new Error(`not a peaks command: ${line}`);
  return runPeaks([...words.slice(1), "--json"], options);
}
