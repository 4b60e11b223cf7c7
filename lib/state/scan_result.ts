/** The zod schemas of the scan result file (result.ts). */
import { z } from "../infra/zod.ts";
import { ARCHETYPES } from "../scan/archetypes.ts";

const nullableString = z.string().nullable();

/** One legacy constraint: what was found, where, and the rule it becomes in the standards. */
export const LegacyConstraintSchema = z.object({
  id: z.string(),
  summary: z.string(),
  rule: z.string(),
  evidence: z.array(z.string()),
});
export type LegacyConstraint = z.infer<typeof LegacyConstraintSchema>;

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
export type ScanResult = z.infer<typeof ScanResultSchema>;
