/**
 * A presence file (which skill, workflow mode and stage a caller is in) and
 * a context reading (how full the host's context window is). The workflow
 * modes and the zod schemas; lib/presence/ reads and writes them.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";

/** The workflow modes a presence can name. */
export const PRESENCE_MODES = ["full-auto", "assisted", "swarm", "strict", "24h"] as const;
export type PresenceMode = (typeof PRESENCE_MODES)[number];

/** The longest `next` a presence keeps (a few words, not a plan). */
export const NEXT_MAX = 120;

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const presenceSchemas = schemas((z: Zod) => {
  const PresenceSchema = z.object({
    version: z.literal(1),
    sessionId: z.string(),
    callerId: z.string().nullable(),
    skill: z.string(),
    mode: z.enum(PRESENCE_MODES).nullable(),
    gate: z.string().nullable(),
    role: z.string().nullable(),
    /** The orchestrator's next step in a few words, for the header's `Next:` segment. */
    next: z.string().max(NEXT_MAX).nullable().optional(),
    setAt: z.string(),
    updatedAt: z.string(),
  });

  const ContextReadingSchema = z.object({
    ratioPct: z.number().min(0).max(1000),
    source: z.string(),
    at: z.string(),
    windowTokens: z.number().nullable().optional(),
    usedTokens: z.number().nullable().optional(),
  });
  return { PresenceSchema, ContextReadingSchema };
});
type Built = ReturnType<typeof presenceSchemas>;
export type Presence = z.infer<Built["PresenceSchema"]>;
export type ContextReading = z.infer<Built["ContextReadingSchema"]>;
