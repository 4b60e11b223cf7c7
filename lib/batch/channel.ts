/**
 * The shared channel of a batch (`.peaks/_sub_agents/<sid>/shared/<batchId>.json`):
 * sibling sub-agents post small JSON values under keys such as
 * `<role>.completed` or `<role>.found-blocker`, and read each other's.
 * One channel per batch, so siblings with different request ids meet.
 */
import type { Project } from "../workspace/project.ts";
import { readValidated } from "../infra/fs/json.ts";
import { commandLine } from "../infra/shell.ts";
import { loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { CHANNEL_SHAPE } from "../state/shapes.ts";
import type { Channel } from "../state/channel.ts";

export { CHANNEL_VERSION } from "../state/channel.ts";
/** A value above this is posted with a warning: siblings read the whole channel. */
export const VALUE_WARN_BYTES = 1024;
/** A value of this size or more is refused. */
export const VALUE_MAX_BYTES = 64 * 1024;
/** The channel file stays under this; the oldest entries are evicted to make room. */
export const CHANNEL_CAP_BYTES = 1024 * 1024;

export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export type { Channel, ChannelEntry } from "../state/channel.ts";

/** Channel files, checked by their shape (zod only for what the shape doubts). */
export const ChannelFile = stateSchema<Channel>(
  CHANNEL_SHAPE,
  () =>
    import("../state/channel.ts").then((m) => loadSchemas(m.channelSchemas)).then((s) =>
      s.ChannelSchema
    ),
);

export function channelReadOptions(path: string) {
  return { what: "shared channel", repair: [commandLine(["mv", path, `${path}.corrupt`])] };
}

export function readChannel(
  project: Project,
  sid: string,
  batchId: string,
): Promise<Channel | undefined> {
  const path = project.layout.sharedChannel(sid, batchId);
  return readValidated(path, ChannelFile, channelReadOptions(path));
}
