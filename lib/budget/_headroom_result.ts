/**
 * What a headroom compression attempt reports, as stored in dispatch records
 * and shown in envelopes. Every number comes from the proxy's answer; a
 * figure the proxy did not send is null, never estimated.
 */
import { z } from "../infra/zod.ts";
import { HEADROOM_MODES } from "../preferences/preferences.ts";

const count = z.number().finite().nonnegative().nullable();

export const HeadroomResultSchema = z.object({
  mode: z.enum(HEADROOM_MODES),
  /** True only when the prompt that goes on is the proxy's shorter version. */
  compressed: z.boolean(),
  tokensBefore: count,
  tokensAfter: count,
  compressionRatio: count,
  transformsApplied: z.array(z.string()),
  /** The budget peaks asked for: floor(promptBytes × k / 4). */
  tokenBudget: z.number().int().positive(),
  /** The model name sent to the proxy (it picks the tokenizer). */
  model: z.string(),
  /** Why the prompt went on uncompressed; null when it was compressed. */
  reason: z.string().nullable(),
  /** CCR hashes for a later rehydrate; kept in the record, not shown in envelopes. */
  ccrHashes: z.array(z.string()).optional(),
});

export type HeadroomResult = z.infer<typeof HeadroomResultSchema>;
