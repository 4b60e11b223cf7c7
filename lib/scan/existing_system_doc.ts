/**
 * existing-system.md: the extracted conventions between peaks markers (a
 * refresh rewrites only that part) followed by headings the skill completes.
 * Standards read it back through `readConventionSections`.
 */
import type { ScanResult } from "./result.ts";
import { CONVENTION_SECTIONS, type Conventions, TO_COMPLETE } from "./conventions.ts";

export const EXISTING_BEGIN = "<!-- peaks:existing-system:begin -->";
export const EXISTING_END = "<!-- peaks:existing-system:end -->";

export const TO_COMPLETE_HEADINGS: [string, string][] = [
  [
    "Error handling",
    "how failed requests and thrown errors reach the user (notification, error boundary, retry).",
  ],
  ["Permissions and route guards", "how access is checked before a page or endpoint runs."],
  [
    "Component patterns",
    "how pages compose layouts, forms and tables, and which shared components new pages reuse.",
  ],
  [
    "Data contracts",
    "where request/response types live and how they are kept in step with the backend.",
  ],
];

export function renderExtracted(conventions: Conventions, scan: ScanResult, files: number): string {
  const lines = [
    EXISTING_BEGIN,
    `Extracted by \`peaks scan existing-system\` from ${files} files (archetype: ${scan.archetype}). ` +
    "Running it again rewrites only the text between these markers.",
  ];
  for (const [key, title] of CONVENTION_SECTIONS) {
    lines.push("", `## ${title}`, "", ...conventions[key].map((line) => `- ${line}`));
  }
  lines.push(EXISTING_END);
  return lines.join("\n");
}

export function renderDocument(conventions: Conventions, scan: ScanResult, files: number): string {
  const lines = [
    "# Existing system",
    "",
    renderExtracted(conventions, scan, files),
    "",
    "## To complete",
    "",
    `Replace each \`${TO_COMPLETE}\` line below with what the code shows (cite files). ` +
    "peaks never rewrites this part.",
  ];
  for (const [title, what] of TO_COMPLETE_HEADINGS) {
    lines.push("", `### ${title}`, "", `- ${TO_COMPLETE}: ${what}`);
  }
  return `${lines.join("\n")}\n`;
}

export type MergeOutcome =
  | { kind: "created" | "refreshed" | "unchanged"; text: string }
  | { kind: "review-only"; reason: string };

/** The next content of existing-system.md given what is on disk (undefined = missing). */
export function mergeDocument(
  current: string | undefined,
  conventions: Conventions,
  scan: ScanResult,
  files: number,
): MergeOutcome {
  if (current === undefined) {
    return { kind: "created", text: renderDocument(conventions, scan, files) };
  }
  const begin = current.indexOf(EXISTING_BEGIN);
  const end = current.indexOf(EXISTING_END, begin + 1);
  if (begin === -1 || end === -1 || current.indexOf(EXISTING_BEGIN, begin + 1) !== -1) {
    return {
      kind: "review-only",
      reason: "it has no single peaks marker pair, so it was written by hand; it is left as it is",
    };
  }
  const text = current.slice(0, begin) + renderExtracted(conventions, scan, files) +
    current.slice(end + EXISTING_END.length);
  return { kind: text === current ? "unchanged" : "refreshed", text };
}

export interface ConventionSection {
  title: string;
  lines: string[];
}

/**
 * The conventions in an existing-system.md: every `##`/`###` section's
 * bullets, minus lines still marked TO COMPLETE and the container heading.
 */
export function readConventionSections(text: string): ConventionSection[] {
  const sections: ConventionSection[] = [];
  let current: ConventionSection | undefined;
  for (const raw of text.replace(/\r\n/g, "\n").split("\n")) {
    const heading = /^#{2,3}\s+(.+?)\s*$/.exec(raw);
    if (heading) {
      current = { title: heading[1], lines: [] };
      sections.push(current);
      continue;
    }
    const bullet = /^\s*[-*]\s+(.+?)\s*$/.exec(raw)?.[1];
    if (!current || !bullet || bullet.includes(TO_COMPLETE)) continue;
    current.lines.push(bullet);
  }
  return sections.filter((s) => s.lines.length > 0 && s.title !== "To complete");
}

export function conventionsToSections(conventions: Conventions): ConventionSection[] {
  return CONVENTION_SECTIONS.map(([key, title]) => ({
    title,
    lines: conventions[key].filter((line) => !line.includes(TO_COMPLETE)),
  })).filter((s) => s.lines.length > 0);
}
