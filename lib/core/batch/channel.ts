/**
 * The shared channel of a batch (`.peaks/_sub_agents/<sid>/shared/<batchId>.json`):
 * sibling sub-agents post small JSON values under keys such as
 * `<role>.completed` or `<role>.found-blocker`, and read each other's.
 * One channel per batch, so siblings with different request ids meet.
 */
import { z } from "../zod.ts";
import type { Project } from "../project/project.ts";
import { readValidated } from "../fs/json.ts";
import { commandLine } from "../shell.ts";

export const CHANNEL_VERSION = 1;
/** A value above this is posted with a warning: siblings read the whole channel. */
export const VALUE_WARN_BYTES = 1024;
/** A value of this size or more is refused. */
export const VALUE_MAX_BYTES = 64 * 1024;
/** The channel file stays under this; the oldest entries are evicted to make room. */
export const CHANNEL_CAP_BYTES = 1024 * 1024;

export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

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

export function channelReadOptions(path: string) {
  return { what: "shared channel", repair: [commandLine(["mv", path, `${path}.corrupt`])] };
}

export function readChannel(
  project: Project,
  sid: string,
  batchId: string,
): Promise<Channel | undefined> {
  const path = project.layout.sharedChannel(sid, batchId);
  return readValidated(path, ChannelSchema, channelReadOptions(path));
}
