/**
 * Splits a command line the way a POSIX shell would for the quoting
 * `commandLine` produces (bare words and single-quoted words with '\''),
 * so tests can run nextActions exactly as written.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated quote in: ${line}`);
      current += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === "\\" && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (c === " " || c === "\t") {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else if (/[|&;<>()$`"*?]/.test(c)) {
      throw new Error(`unexpected shell syntax ${JSON.stringify(c)} in: ${line}`);
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}
