/** Runs the nextActions a command returned, exactly as a shell would read them. */
import { assert } from "@std/assert";
import { type RunOptions, runPeaks, type RunResult } from "./cli.ts";

/** Splits a POSIX command line built by `commandLine` (plain words and '...' quoting). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      assert(end !== -1, `unterminated quote in ${line}`);
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

/** Runs each action (all must be `peaks ...`) in order; returns their results. */
export async function runActions(actions: string[], options: RunOptions): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const action of actions) {
    const words = shellWords(action);
    assert(words[0] === "peaks", `nextAction is not a peaks command: ${action}`);
    results.push(await runPeaks([...words.slice(1), "--json"], options));
  }
  return results;
}
