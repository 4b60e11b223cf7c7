/**
 * Command lines as peaks hands them out (nextActions, fixes, instructions):
 * quoted for a POSIX shell, and split back the same way.
 */

/** Quotes a value for a POSIX shell when it needs it, so nextActions run as written. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Builds a command line from words, quoting each as needed. */
export function commandLine(words: string[]): string {
  return words.map(shellQuote).join(" ");
}

/**
 * A `peaks` command line pinned to the project: `peaks <words> --project <root> <after>`, so it
 * runs from any cwd.
 */
export function peaksLine(
  root: string,
  words: readonly string[],
  after: readonly string[] = [],
): string {
  return commandLine(["peaks", ...words, ...projectArgs(root), ...after]);
}

/**
 * A `peaks` command line as the caller will run it: with `--json` (and `--pretty`) when the caller
 * asked for JSON, so a nextAction run as written answers in the same form. Lines that are not
 * peaks commands, or already choose their output, are returned as they are.
 */
export function withOutputMode(line: string, mode: { json: boolean; pretty: boolean }): string {
  if (!mode.json || !line.startsWith("peaks ")) return line;
  let words: string[];
  try {
    words = splitCommandLine(line);
  } catch {
    return line;
  }
  if (words.includes("--json") || words.includes("--pretty")) return line;
  return `${line} ${mode.pretty ? "--json --pretty" : "--json"}`;
}

/** `--project <root>`, for argument lists built up elsewhere (replays, spawned processes). */
export function projectArgs(root: string): string[] {
  return ["--project", root];
}

/**
 * Splits a command line the way a POSIX shell splits what `commandLine`
 * produces (plain words, '...' quoting, backslash escapes); any other shell
 * syntax is an error, because nextActions never contain it.
 */
export function splitCommandLine(line: string): string[] {
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
