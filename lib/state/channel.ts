/**
 * A batch's shared channel (`channel-<batch>.json`): the key/value entries
 * sibling sub-agents share. Its version and its zod schema; lib/batch/channel.ts
 * reads and writes it.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";

/** The version of shared channels this peaks writes. */
export const CHANNEL_VERSION = 1;

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const channelSchemas = schemas((z: Zod) => {
  const ChannelEntrySchema = z.object({
    key: z.string(),
    value: z.unknown(),
    from: z.string().nullable(),
    at: z.string(),
    valueSize: z.number().int().min(0),
  });

  const ChannelSchema = z.looseObject({
    version: z.literal(CHANNEL_VERSION),
    batchId: z.string(),
    sessionId: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** How many entries were evicted over the channel's life to respect the cap. */
    evicted: z.number().int().min(0),
    entries: z.array(ChannelEntrySchema),
  });
  return { ChannelEntrySchema, ChannelSchema };
});
type Built = ReturnType<typeof channelSchemas>;
export type ChannelEntry = z.infer<Built["ChannelEntrySchema"]>;
export type Channel = z.infer<Built["ChannelSchema"]>;
