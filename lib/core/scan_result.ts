/**
 * The project scan's machine-readable result
 * (`.peaks/project-scan/project-scan.json`, next to the markdown report).
 * Dispatch, swarm and standards read it instead of parsing markdown.
 */
import { z } from "zod";
import type { Project } from "./project.ts";
import { readValidated } from "./store.ts";
import { commandLine } from "./shell.ts";

export const ARCHETYPES = [
  "greenfield",
  "legacy-frontend",
  "legacy-fullstack",
  "frontend-monorepo",
  "fullstack-monorepo",
  "unknown",
] as const;
export type Archetype = (typeof ARCHETYPES)[number];

/** Archetypes whose existing conventions new code must keep. */
export const LEGACY_ARCHETYPES: readonly Archetype[] = [
  "legacy-frontend",
  "legacy-fullstack",
  "frontend-monorepo",
];

const nullableString = z.string().nullable();

export const ScanResultSchema = z.object({
  version: z.literal(1),
  scannedAt: z.string(),
  archetype: z.enum(ARCHETYPES),
  confidence: z.number().min(0).max(1),
  signals: z.array(z.string()),
  frontendOnly: z.boolean(),
  frontendOnlyReason: z.string(),
  stack: z.object({
    language: nullableString,
    componentLibrary: nullableString,
    css: nullableString,
    buildTool: nullableString,
    stateManagement: nullableString,
    routing: nullableString,
    testRunner: nullableString,
  }),
  legacyConstraints: z.array(z.string()),
}).passthrough();
export type ScanResult = z.infer<typeof ScanResultSchema>;

export function readScanResult(project: Project): Promise<ScanResult | undefined> {
  return readValidated(project.layout.projectScanJson, ScanResultSchema, {
    what: "project scan result",
    repair: [commandLine(["peaks", "scan", "archetype", "--project", project.root])],
  });
}
