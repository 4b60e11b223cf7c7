/**
 * The per-session ledger of `--allow-incomplete` transitions, as zod sees it.
 * Commands check the ledger against its shape first (OVERRIDE_LEDGER_SHAPE)
 * and load this module only for what the shape doubts.
 */
import { z } from "../infra/zod.ts";

export const OverrideEntrySchema = z.object({
  at: z.string(),
  rid: z.string(),
  role: z.string(),
  from: z.string(),
  to: z.string(),
  reason: z.string(),
  /** The gates the transition skipped. */
  bypassed: z.array(z.enum(["lint", "prerequisites"])),
});
export type OverrideEntry = z.infer<typeof OverrideEntrySchema>;

export const OverrideLedgerSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  entries: z.array(OverrideEntrySchema),
});
export type OverrideLedger = z.infer<typeof OverrideLedgerSchema>;
