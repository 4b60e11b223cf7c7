/** Runs a `peaks ...` nextAction exactly as a shell would split it. */
import { type RunOptions, runPeaks, type RunResult } from "./cli.ts";

/** Splits a command line built by `commandLine` (plain words and POSIX single quotes). */
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

export function runNextAction(line: string, options: RunOptions): Promise<RunResult> {
  const words = shellWords(line);
  if (words[0] !== "peaks") throw new Error(`not a peaks command: ${line}`);
  return runPeaks(words.slice(1), options);
}
