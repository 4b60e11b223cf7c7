/** The zod schemas of presence files and context readings (presence.ts). */
import { z } from "../infra/zod.ts";
import { PRESENCE_MODES } from "../presence/modes.ts";

export const PresenceSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  callerId: z.string().nullable(),
  skill: z.string(),
  mode: z.enum(PRESENCE_MODES).nullable(),
  gate: z.string().nullable(),
  role: z.string().nullable(),
  setAt: z.string(),
  updatedAt: z.string(),
});
export type Presence = z.infer<typeof PresenceSchema>;

export const ContextReadingSchema = z.object({
  ratioPct: z.number().min(0).max(1000),
  source: z.string(),
  at: z.string(),
  windowTokens: z.number().nullable().optional(),
  usedTokens: z.number().nullable().optional(),
});
export type ContextReading = z.infer<typeof ContextReadingSchema>;
