/**
 * The per-session ledger of `--allow-incomplete` transitions. Commands check
 * the ledger against its shape first (OVERRIDE_LEDGER_SHAPE) and build this
 * schema only for what the shape doubts.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const overridesSchemas = schemas((z: Zod) => {
  const OverrideEntrySchema = z.object({
    at: z.string(),
    rid: z.string(),
    role: z.string(),
    from: z.string(),
    to: z.string(),
    reason: z.string(),
    /** The gates the transition skipped. */
    bypassed: z.array(z.enum(["lint", "prerequisites"])),
  });

  const OverrideLedgerSchema = z.object({
    version: z.literal(1),
    sessionId: z.string(),
    entries: z.array(OverrideEntrySchema),
  });
  return { OverrideEntrySchema, OverrideLedgerSchema };
});
type Built = ReturnType<typeof overridesSchemas>;
export type OverrideEntry = z.infer<Built["OverrideEntrySchema"]>;
export type OverrideLedger = z.infer<Built["OverrideLedgerSchema"]>;
