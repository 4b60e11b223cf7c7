/**
 * Request lint. Errors: `<placeholder>` tokens and bullets that are only an
 * ellipsis (`- ...`), one per occurrence. Warnings: TBD / TODO / FIXME.
 * Code (fences and inline spans), HTML comments, autolinks, common HTML tags,
 * the front matter and the peaks history block are not placeholders.
 */
import { historySpan } from "./history.ts";

export type LintRule = "placeholder" | "ellipsis-bullet" | "marker";

export interface LintIssue {
  /** 1-based line number in the file. */
  line: number;
  rule: LintRule;
  token: string;
  message: string;
}

export interface LintResult {
  errors: LintIssue[];
  warnings: LintIssue[];
}

const PLACEHOLDER = /<([A-Za-z][^<>\n]*)>/g;
const ELLIPSIS_BULLET = /^\s*(?:[-*+]|\d+[.)])\s+(?:\.\.\.|…)\s*$/;
const MARKER = /\b(TBD|TODO|FIXME)\b/g;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const AUTOLINK = /^(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:\S*|[^\s@]+@[^\s@]+)$/;
const HTML_TAG = /^([a-z][a-z0-9]*)((?:\s+[a-z-]+=(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))*)\s*\/?$/;

/** Tags that can appear in markdown; `title`, `name` and the like stay placeholders. */
const HTML_TAGS = new Set([
  "a",
  "abbr",
  "b",
  "br",
  "code",
  "dd",
  "del",
  "details",
  "div",
  "dl",
  "dt",
  "em",
  "hr",
  "i",
  "img",
  "ins",
  "kbd",
  "li",
  "mark",
  "ol",
  "p",
  "picture",
  "pre",
  "s",
  "samp",
  "small",
  "source",
  "span",
  "strong",
  "sub",
  "summary",
  "sup",
  "table",
  "tbody",
  "td",
  "th",
  "thead",
  "tr",
  "u",
  "ul",
  "video",
]);

function isPlaceholder(inner: string): boolean {
  if (AUTOLINK.test(inner)) return false;
  const tag = HTML_TAG.exec(inner);
  return !(tag && HTML_TAGS.has(tag[1]));
}

/** Blanks inline code spans and single-line HTML comments, keeping the rest in place. */
function visibleText(line: string): string {
  return line
    .replace(/<!--.*?-->/g, (m) => " ".repeat(m.length))
    .replace(/(`+)[^`]*?\1/g, (m) => " ".repeat(m.length));
}

/** Index of the first body line: after a leading `---` front matter block, else 0. */
function bodyStart(lines: readonly string[]): number {
  if (lines[0]?.trim() !== "---") return 0;
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  return end === -1 ? 0 : end + 1;
}

export function lintText(text: string): LintResult {
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  const errors: LintIssue[] = [];
  const warnings: LintIssue[] = [];
  const history = historySpan(lines);
  let fence: string | undefined;
  for (let i = bodyStart(lines); i < lines.length; i++) {
    if (history && i >= history.start && i <= history.end) continue;
    const raw = lines[i];
    const line = i + 1;
    const fenceMark = FENCE.exec(raw)?.[1];
    if (fenceMark) {
      if (fence === undefined) fence = fenceMark[0];
      else if (fenceMark[0] === fence) fence = undefined;
    }
    for (const match of raw.matchAll(MARKER)) {
      warnings.push({
        line,
        rule: "marker",
        token: match[1],
        message: `line ${line}: ${match[1]} left in the text`,
      });
    }
    if (fence !== undefined || fenceMark) continue;
    if (ELLIPSIS_BULLET.test(raw)) {
      errors.push({
        line,
        rule: "ellipsis-bullet",
        token: raw.trim(),
        message: `line ${line}: the bullet "${raw.trim()}" must be written out or removed`,
      });
      continue;
    }
    for (const match of visibleText(raw).matchAll(PLACEHOLDER)) {
      if (!isPlaceholder(match[1])) continue;
      errors.push({
        line,
        rule: "placeholder",
        token: match[0],
        message: `line ${line}: placeholder ${match[0]} must be replaced with real content`,
      });
    }
  }
  return { errors, warnings };
}

/** The placeholders of a text, as `request init` reports them. */
export function placeholdersOf(text: string): { line: number; token: string }[] {
  return lintText(text).errors.filter((e) => e.rule === "placeholder").map((e) => ({
    line: e.line,
    token: e.token,
  }));
}
