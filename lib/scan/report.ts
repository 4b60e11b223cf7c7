/**
 * The scan's two files: the markdown report people and skills read
 * (`## Archetype`, `## Project mode`, `## Stack`, `## Legacy constraints`)
 * and its machine-readable twin project-scan.json.
 */
import type { Project } from "../workspace/project.ts";
import type { ScanResult } from "./result.ts";
import { displayPath } from "../workspace/paths.ts";
import { readBoundedText, writeFileAtomic, writeJsonAtomic } from "../infra/fs/files.ts";
import { isNotFound } from "../infra/errors.ts";
import { assertWritable } from "../workspace/writable.ts";

export type StackKey = keyof ScanResult["stack"];

export const STACK_LABELS: [StackKey, string][] = [
  ["language", "Language"],
  ["framework", "Framework"],
  ["componentLibrary", "Component library"],
  ["css", "CSS"],
  ["buildTool", "Build tool"],
  ["stateManagement", "State management"],
  ["routing", "Routing"],
  ["testRunner", "Test runner"],
  ["backend", "Backend"],
];

/** Stack entries the scan actually found, in report order. */
export function knownStack(result: ScanResult): [string, string][] {
  return STACK_LABELS.flatMap(([key, label]) => {
    const value = result.stack[key];
    return value ? [[label, value] as [string, string]] : [];
  });
}

export function renderScanReport(result: ScanResult): string {
  const lines = [
    "# Project scan",
    "",
    "Written by `peaks scan archetype`; re-run it instead of editing this file. The same result, " +
    "machine-readable, is in `project-scan.json` next to it.",
    "",
    "## Archetype",
    "",
    `archetype: ${result.archetype}`,
    `confidence: ${result.confidence}`,
    "",
    "Signals:",
    ...result.signals.map((s) => `- ${s}`),
    "",
    "## Project mode",
    "",
    `frontendOnly: ${result.frontendOnly}`,
    `reason: ${result.frontendOnlyReason}`,
    "",
    "## Stack",
    "",
  ];
  for (const [key, label] of STACK_LABELS) {
    const value = result.stack[key];
    const evidence = result.evidence?.[key]?.slice(0, 3);
    lines.push(
      `- ${label}: ${value ?? "not detected"}${
        value && evidence?.length ? ` (${evidence.join("; ")})` : ""
      }`,
    );
  }
  if (result.monorepo) {
    lines.push(
      `- Monorepo: ${result.monorepo.tool}, packages: ${
        result.monorepo.packages.join(", ") || "none matched"
      }`,
    );
  }
  lines.push("", "## Legacy constraints", "");
  if (result.legacy?.length) {
    for (const item of result.legacy) {
      lines.push(`- ${item.summary}`, `  - rule: ${item.rule}`);
    }
  } else if (result.legacyConstraints.length) {
    lines.push(...result.legacyConstraints.map((c) => `- ${c}`));
  } else {
    lines.push("- none found");
  }
  if (result.walk) {
    lines.push(
      "",
      "## Scan limits",
      "",
      `- files walked: ${result.walk.files} (limit ${result.walk.maxFiles}, depth limit ${result.walk.maxDepth})`,
      `- truncated: ${result.walk.truncated}${
        result.walk.truncatedBy ? ` (${result.walk.truncatedBy} limit reached)` : ""
      }`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The file's current text, or undefined when it is missing or not a plain readable file. */
async function currentText(path: string): Promise<string | undefined> {
  try {
    return await readBoundedText(path);
  } catch {
    return undefined;
  }
}

/**
 * The result as it will be stored: a scan that found nothing new keeps the stored
 * `scannedAt`, so a session start leaves tracked scan files byte for byte alone.
 */
function keepStoredTime(stored: string | undefined, result: ScanResult): ScanResult {
  if (stored === undefined) return result;
  try {
    const old = JSON.parse(stored);
    if (typeof old?.scannedAt !== "string") return result;
    const same = JSON.stringify({ ...result, scannedAt: old.scannedAt }) ===
      JSON.stringify(old);
    return same ? { ...result, scannedAt: old.scannedAt } : result;
  } catch {
    return result;
  }
}

/**
 * Writes project-scan.md and project-scan.json; returns their display paths. A file
 * whose content would not change is not rewritten (the scan time included).
 */
export async function writeScanFiles(project: Project, result: ScanResult): Promise<string[]> {
  const { projectScan, projectScanJson } = project.layout;
  const written: string[] = [];
  for (const path of [projectScan, projectScanJson]) {
    await assertWritable(project, path, "the project scan");
  }
  const storedJson = await currentText(projectScanJson);
  const kept = keepStoredTime(storedJson, result);
  const files: [string, string, string | undefined][] = [
    [projectScan, renderScanReport(kept), await currentText(projectScan)],
    [projectScanJson, `${JSON.stringify(kept)}\n`, storedJson],
  ];
  for (const [path, text, stored] of files) {
    if (text !== stored) {
      if (path === projectScanJson) await writeJsonAtomic(path, kept);
      else await writeFileAtomic(path, text);
    }
    written.push(displayPath(project.root, path));
  }
  return written;
}

export async function scanFilesExist(project: Project): Promise<boolean> {
  for (const path of [project.layout.projectScan, project.layout.projectScanJson]) {
    try {
      await Deno.lstat(path);
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }
  return true;
}
