/**
 * The state history peaks keeps at the end of a request body, between two
 * HTML comments (invisible when rendered). Lint skips the block, so a reason
 * quoted there never counts as a placeholder.
 */
export const HISTORY_BEGIN = "<!-- peaks:history:begin -->";
export const HISTORY_END = "<!-- peaks:history:end -->";
const HEADING = "## State history";

/** Indexes (0-based, inclusive) of the block's first and last line, when both markers exist. */
export function historySpan(lines: readonly string[]): { start: number; end: number } | undefined {
  const start = lines.findIndex((line) => line.trim() === HISTORY_BEGIN);
  if (start === -1) return undefined;
  const end = lines.findIndex((line, i) => i > start && line.trim() === HISTORY_END);
  return end === -1 ? undefined : { start, end };
}

/** Appends one entry, creating the block at the end of the body when it is missing. */
export function appendHistory(body: string, entry: string): string {
  const line = `- ${entry.replace(/[\r\n]+/g, " ")}`;
  const lines = body.split("\n");
  const span = historySpan(lines);
  if (span) {
    lines.splice(span.end, 0, line);
    return lines.join("\n");
  }
  const trimmed = body.replace(/\s+$/, "");
  return `${trimmed}\n\n${HISTORY_BEGIN}\n${HEADING}\n\n${line}\n${HISTORY_END}\n`;
}

/** The entries of the block, oldest first. */
export function readHistory(body: string): string[] {
  const lines = body.split("\n");
  const span = historySpan(lines);
  if (!span) return [];
  return lines.slice(span.start + 1, span.end)
    .filter((line) => line.startsWith("- "))
    .map((line) => line.slice(2).trim());
}
