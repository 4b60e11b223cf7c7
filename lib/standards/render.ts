/**
 * What the standards say: the managed block for CLAUDE.md / AGENTS.md and
 * the files under .peaks/standards/, all drawn from the scan result and the
 * existing-system conventions. Deterministic (no clock), so a refresh with
 * the same inputs produces the same bytes.
 */
import { LEGACY_ARCHETYPES, type ScanResult } from "../scan/result.ts";
import { STACK_LABELS, type StackKey } from "../scan/report.ts";
import type { ConventionSection } from "../scan/existing_system_doc.ts";

export interface StandardsInput {
  scan: ScanResult;
  /** Conventions for legacy archetypes; null when not required. */
  conventions: ConventionSection[] | null;
}

export const KEEP_PATTERNS_RULE =
  "New code in a touched module keeps these patterns unless the PRD authorises modernisation.";

const RULES: Partial<Record<StackKey, (value: string) => string>> = {
  language: (v) =>
    v.startsWith("TypeScript")
      ? `Write ${v} under the project's tsconfig; do not add plain .js source files.`
      : `Write ${v}, matching the existing code.`,
  framework: (v) => `UI code is ${v}; do not bring in another UI framework.`,
  componentLibrary: (v) => `Build UI from ${v}; do not add a second component library.`,
  css: (v) =>
    `Style with ${v} as the existing files do; do not introduce another styling approach.`,
  buildTool: (v) =>
    `${v} builds the project; change its configuration rather than adding a parallel toolchain.`,
  stateManagement: (v) => `Shared state goes through ${v}; do not add another state library.`,
  routing: (v) => `Routes are declared with ${v}.`,
  testRunner: (v) => `Tests run with ${v}; new tests use it too.`,
  backend: (v) => `Server code uses ${v}; follow its existing structure.`,
};

export function isLegacyArchetype(scan: ScanResult): boolean {
  return LEGACY_ARCHETYPES.includes(scan.archetype);
}

function stackBullets(scan: ScanResult): string[] {
  return STACK_LABELS.flatMap(([key, label]) => {
    const value = scan.stack[key];
    // Optional fields are listed only when found; the seven core ones always.
    if (!value && (key === "framework" || key === "backend")) return [];
    return [`- ${label}: ${value ?? "unknown"}`];
  });
}

function ruleBullets(scan: ScanResult): string[] {
  return STACK_LABELS.flatMap(([key]) => {
    const value = scan.stack[key];
    const rule = RULES[key];
    return value && rule ? [`- ${rule(value)}`] : [];
  });
}

function modeLine(scan: ScanResult): string {
  return scan.frontendOnly
    ? "Project mode: frontend only (no backend in this repository); API changes are out of scope unless the PRD says otherwise."
    : `Project mode: not frontend-only. ${scan.frontendOnlyReason}`;
}

/** The block's body (between the meta line and the end marker), LF line endings. */
export function renderBlockBody(input: StandardsInput): string {
  const { scan } = input;
  const lines = [
    "## Project standards (managed by peaks)",
    "",
    `Drawn from the project scan (\`.peaks/project-scan/project-scan.md\`, archetype \`${scan.archetype}\`). ` +
    "Refresh with `peaks standards update --apply`; keep your own notes outside the peaks markers.",
    "",
    modeLine(scan),
    "",
    "## Stack",
    "",
    ...stackBullets(scan),
  ];
  const rules = ruleBullets(scan);
  if (rules.length) lines.push("", "## Rules", "", ...rules);
  const legacy = scan.legacy ?? [];
  if (legacy.length || scan.legacyConstraints.length) {
    lines.push("", "## Legacy constraints (hard rules)", "");
    if (legacy.length) lines.push(...legacy.map((item) => `- ${item.summary}: ${item.rule}`));
    else {lines.push(...scan.legacyConstraints.map((c) =>
        `- ${c}: keep it as it is in touched modules.`
      ));}
  }
  if (input.conventions) {
    lines.push(
      "",
      "## Conventions",
      "",
      "Extracted by `peaks scan existing-system` (full text in `.peaks/standards/conventions.md`).",
    );
    for (const section of input.conventions) {
      lines.push("", `### ${section.title}`, "", ...section.lines.map((l) => `- ${l}`));
    }
    lines.push("", KEEP_PATTERNS_RULE);
  }
  return lines.join("\n");
}

export const STANDARDS_README = [
  "# .peaks/standards",
  "",
  "Written by `peaks standards init|update --apply` (and scaffolded by `peaks upgrade --to 2.0`).",
  "The short form of these standards is the peaks block in CLAUDE.md and AGENTS.md.",
  "",
  "- `stack.md`: the detected stack, the evidence for each entry, and the rules that follow from it.",
  "- `legacy-constraints.md`: what existing code must keep, with the files that show it.",
  "- `conventions.md`: naming, layout, service-layer and hooks conventions (legacy archetypes).",
  "- `legacy-rules/`: rule files peaks 1.x kept under `.claude/rules/`, moved here by `peaks upgrade`.",
  "",
  "peaks owns these files: a file edited by hand is reported as review-only and left alone.",
].join("\n");

export function renderStackFile(scan: ScanResult): string {
  const lines = ["# Stack", "", `Archetype: ${scan.archetype} (confidence ${scan.confidence}).`];
  lines.push(modeLine(scan), "");
  for (const [key, label] of STACK_LABELS) {
    const value = scan.stack[key];
    if (!value && (key === "framework" || key === "backend")) continue;
    lines.push(`## ${label}`, "", value ?? "unknown");
    const evidence = scan.evidence?.[key] ?? [];
    if (evidence.length) lines.push("", ...evidence.map((e) => `- evidence: ${e}`));
    const rule = value ? RULES[key]?.(value) : undefined;
    if (rule) lines.push(`- rule: ${rule}`);
    lines.push("");
  }
  return lines.join("\n").trimEnd();
}

export function renderLegacyFile(scan: ScanResult): string {
  const lines = ["# Legacy constraints", ""];
  const legacy = scan.legacy ?? [];
  if (!legacy.length) {
    lines.push("None found by the scan.");
    return lines.join("\n");
  }
  for (const item of legacy) {
    lines.push(`## ${item.summary}`, "", item.rule, "", ...item.evidence.map((e) => `- ${e}`), "");
  }
  return lines.join("\n").trimEnd();
}

export function renderConventionsFile(conventions: ConventionSection[]): string {
  const lines = ["# Conventions", "", KEEP_PATTERNS_RULE];
  for (const section of conventions) {
    lines.push("", `## ${section.title}`, "", ...section.lines.map((l) => `- ${l}`));
  }
  return lines.join("\n");
}
