/** The zod schemas of a batch's shared channel (channel.ts). */
import { z } from "../infra/zod.ts";
import { CHANNEL_VERSION } from "../batch/files.ts";

export const ChannelEntrySchema = z.object({
  key: z.string(),
  value: z.unknown(),
  from: z.string().nullable(),
  at: z.string(),
  valueSize: z.number().int().min(0),
});
export type ChannelEntry = z.infer<typeof ChannelEntrySchema>;

export const ChannelSchema = z.looseObject({
  version: z.literal(CHANNEL_VERSION),
  batchId: z.string(),
  sessionId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** How many entries were evicted over the channel's life to respect the cap. */
  evicted: z.number().int().min(0),
  entries: z.array(ChannelEntrySchema),
});
export type Channel = z.infer<typeof ChannelSchema>;
