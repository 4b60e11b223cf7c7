/** Quotes a value for a POSIX shell when it needs it, so nextActions run as written. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Builds a command line from words, quoting each as needed. */
export function commandLine(words: string[]): string {
  return words.map(shellQuote).join(" ");
}
