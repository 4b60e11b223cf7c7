/**
 * The scan result (`.peaks/scan/result.json`): the archetypes a scan can find
 * and the zod schema. lib/scan/ writes it; swarm, standards and doctor read it.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";

/** The project archetypes a scan can find (result.ts). */
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

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const scanResultSchemas = schemas((z: Zod) => {
  const nullableString = z.string().nullable();

  /** One legacy constraint: what was found, where, and the rule it becomes in the standards. */
  const LegacyConstraintSchema = z.object({
    id: z.string(),
    summary: z.string(),
    rule: z.string(),
    evidence: z.array(z.string()),
  });

  const ScanResultSchema = z.object({
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
      framework: nullableString.optional(),
      backend: nullableString.optional(),
    }),
    legacyConstraints: z.array(z.string()),
    // Optional detail written by `scan archetype`; readers must not require it.
    legacy: z.array(LegacyConstraintSchema).optional(),
    languages: z.array(z.string()).optional(),
    evidence: z.record(z.string(), z.array(z.string())).optional(),
    monorepo: z.object({ tool: z.string(), packages: z.array(z.string()) }).nullable().optional(),
    walk: z.object({
      files: z.number().int().min(0),
      truncated: z.boolean(),
      truncatedBy: z.enum(["files", "depth", "time"]).nullable(),
      maxFiles: z.number().int(),
      maxDepth: z.number().int(),
    }).optional(),
  }).passthrough();
  return { LegacyConstraintSchema, ScanResultSchema };
});
type Built = ReturnType<typeof scanResultSchemas>;
export type LegacyConstraint = z.infer<Built["LegacyConstraintSchema"]>;
export type ScanResult = z.infer<Built["ScanResultSchema"]>;
