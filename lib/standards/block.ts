/**
 * The peaks-managed block inside CLAUDE.md / AGENTS.md. `standards` writes it;
 * Gate G (doctor, the TXT `finalized` transition) checks it.
 */
export const STANDARDS_BEGIN = "<!-- peaks:standards:begin -->";
export const STANDARDS_END = "<!-- peaks:standards:end -->";

export interface StandardsBlockCheck {
  present: boolean;
  /** The block has a `## Stack` section with at least one concrete bullet. */
  namesStack: boolean;
  /** The block's text between the markers, when present. */
  block: string | null;
}

export function findStandardsBlock(text: string): { start: number; end: number } | undefined {
  const start = text.indexOf(STANDARDS_BEGIN);
  if (start === -1) return undefined;
  const end = text.indexOf(STANDARDS_END, start + STANDARDS_BEGIN.length);
  if (end === -1) return undefined;
  return { start, end: end + STANDARDS_END.length };
}

export function checkStandardsBlock(text: string): StandardsBlockCheck {
  const found = findStandardsBlock(text);
  if (!found) return { present: false, namesStack: false, block: null };
  const block = text.slice(found.start + STANDARDS_BEGIN.length, found.end - STANDARDS_END.length);
  const lines = block.split(/\r?\n/);
  const heading = lines.findIndex((line) => /^##\s+Stack\s*$/.test(line));
  let namesStack = false;
  if (heading !== -1) {
    for (const line of lines.slice(heading + 1)) {
      if (/^##\s/.test(line)) break;
      const bullet = /^\s*[-*]\s+(.+)$/.exec(line)?.[1]?.trim();
      if (
        bullet && !/^(\.\.\.|<[^>]*>|unknown|tbd|n\/a)$/i.test(bullet) &&
        !/:\s*(unknown|-)?\s*$/i.test(bullet)
      ) {
        namesStack = true;
        break;
      }
    }
  }
  return { present: true, namesStack, block };
}
