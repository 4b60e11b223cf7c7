import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import {
  type Channel,
  CHANNEL_CAP_BYTES,
  CHANNEL_VERSION,
  type ChannelEntry,
  ChannelFile,
  channelReadOptions,
  KEY_PATTERN,
  VALUE_MAX_BYTES,
  VALUE_WARN_BYTES,
} from "../../batch/channel.ts";
import { gateError, usageError, type Warning } from "../../infra/errors.ts";
import { isoTime, printable } from "../../infra/ids.ts";
import { displayPath } from "../../workspace/paths.ts";
import { openSession } from "../../session/session.ts";
import { updateJson } from "../../infra/fs/json.ts";
import { requireBatch } from "../../batch/channel_access.ts";
import { assertJsonDepth } from "../../infra/json_input.ts";

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/** Bytes an entry adds to the channel file as writeJsonAtomic lays it out (compact, plus a comma). */
function entryBytes(entry: ChannelEntry): number {
  return utf8(JSON.stringify(entry)) + 1;
}

/** Drops the oldest entries (never the newest) until the file fits the cap. */
function evict(channel: Channel): string[] {
  const evicted: string[] = [];
  let total = utf8(JSON.stringify(channel)) + 1;
  while (total > CHANNEL_CAP_BYTES && channel.entries.length > 1) {
    while (total > CHANNEL_CAP_BYTES && channel.entries.length > 1) {
      const oldest = channel.entries.shift()!;
      evicted.push(oldest.key);
      total -= entryBytes(oldest);
    }
    total = utf8(JSON.stringify(channel)) + 1;
  }
  channel.evicted += evicted.length;
  return evicted;
}

export default defineCommand({
  name: "sub-agent share",
  description:
    "Posts a JSON value under a key on the batch's shared channel, where sibling sub-agents read it. " +
    "Conventional keys: <role>.completed, <role>.found-blocker, ui.design-blocker. The last write of a key " +
    "wins (LAST_WRITE_WINS); values over 1 KiB warn, values of 64 KiB or more are refused " +
    "(SHARE_VALUE_TOO_LARGE, exit 3); the channel keeps at most 1 MiB by evicting its oldest entries. " +
    "A --value that is not JSON is stored as a string.",
  flags: {
    batch: flag.string("The batch id from your runtime arguments.", {
      placeholder: "<id>",
      required: true,
      max: 128,
    }),
    key: flag.string("Entry key, e.g. rd-planning.completed.", {
      placeholder: "<key>",
      required: true,
      max: 128,
    }),
    value: flag.string("The value, as JSON.", {
      placeholder: "<json>",
      required: true,
      allowControl: true,
      max: 4 * VALUE_MAX_BYTES,
    }),
    from: flag.string("Who posts it (your role).", { placeholder: "<role>", max: 256 }),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    `peaks sub-agent share --batch <id> --key rd-planning.completed --value '{"artefacts":["rd/tech-doc-<rid>.md"]}' --from rd-planning --json`,
    `peaks sub-agent share --batch <id> --key ui.design-blocker --value '{"reason":"no brand colours"}' --from ui --json`,
  ],
  exitNotes: [
    "3  SHARE_VALUE_TOO_LARGE: the value is 64 KiB or more; register an artefact instead",
  ],
  async run({ flags }, ctx) {
    if (!KEY_PATTERN.test(flags.key)) {
      throw usageError(
        "INVALID_KEY",
        `--key ${
          JSON.stringify(printable(flags.key))
        } is not a channel key: 1-128 characters from A-Z a-z 0-9 . _ : - starting with a letter or digit.`,
        { data: { flag: "key", pattern: KEY_PATTERN.source } },
      );
    }
    const { project, sessionId } = await openSession(ctx, flags["session-id"]);
    const batchId = await requireBatch(project, sessionId, flags.batch);
    const warnings: Warning[] = [];
    const { value, valueSize } = parseValue(flags.value, warnings);
    const path = project.layout.sharedChannel(sessionId, batchId);
    const at = isoTime(ctx.now());
    const entry: ChannelEntry = { key: flags.key, value, from: flags.from ?? null, at, valueSize };
    const outcome = await post(path, { batchId, sessionId, at }, entry);
    if (outcome.previous) {
      warnings.push({
        code: "LAST_WRITE_WINS",
        message: `${flags.key} replaced the value posted by ${
          outcome.previous.from ?? "an unnamed sender"
        } at ${outcome.previous.at}.`,
      });
    }
    if (outcome.evicted.length) {
      warnings.push({
        code: "CHANNEL_EVICTED",
        message:
          `The channel reached ${CHANNEL_CAP_BYTES} bytes; evicted the oldest ${outcome.evicted.length} entr${
            outcome.evicted.length === 1 ? "y" : "ies"
          }.`,
        keys: outcome.evicted,
      });
    }
    return {
      data: {
        projectRoot: project.root,
        batchId,
        channelPath: displayPath(project.root, path),
        key: flags.key,
        valueSize,
        replaced: Boolean(outcome.previous),
        evicted: outcome.evicted,
        entries: outcome.entries,
      },
      warnings,
      human: `shared ${flags.key} (${valueSize} bytes) on batch ${batchId}`,
    };
  },
});

/** The value as JSON when it parses (else as a string), within the channel's size limits. */
function parseValue(raw: string, warnings: Warning[]): { value: unknown; valueSize: number } {
  assertJsonDepth(raw, "value");
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
    warnings.push({
      code: "VALUE_NOT_JSON",
      message: "--value is not JSON; it was stored as a string.",
    });
  }
  const valueSize = utf8(JSON.stringify(value));
  if (valueSize >= VALUE_MAX_BYTES) {
    throw gateError(
      "SHARE_VALUE_TOO_LARGE",
      `The value is ${valueSize} bytes; channel values must stay under ${VALUE_MAX_BYTES} bytes (64 KiB). Write the content to an artefact, register it, and share its path.`,
      { data: { valueSize, max: VALUE_MAX_BYTES } },
    );
  }
  if (valueSize > VALUE_WARN_BYTES) {
    warnings.push({
      code: "SHARE_VALUE_LARGE",
      message:
        `The value is ${valueSize} bytes; every sibling reads the whole channel, so keep values under ${VALUE_WARN_BYTES} bytes.`,
    });
  }
  return { value, valueSize };
}

/** Writes the entry under the channel's lock: last write wins per key, the oldest go past the cap. */
function post(
  path: string,
  channelOf: { batchId: string; sessionId: string; at: string },
  entry: ChannelEntry,
): Promise<{ previous: ChannelEntry | undefined; evicted: string[]; entries: number }> {
  const { batchId, sessionId, at } = channelOf;
  // Pure: when the channel is busy, the post is rehearsed before the wait (updateJson).
  return updateJson(path, ChannelFile, { ...channelReadOptions(path), pure: true }, (current) => {
    const channel: Channel = current ?? {
      version: CHANNEL_VERSION,
      batchId,
      sessionId,
      createdAt: at,
      updatedAt: at,
      evicted: 0,
      entries: [],
    };
    const previous = channel.entries.find((e) => e.key === entry.key);
    channel.entries = channel.entries.filter((e) => e.key !== entry.key);
    channel.entries.push(entry);
    channel.updatedAt = at;
    const evicted = evict(channel);
    return { value: channel, result: { previous, evicted, entries: channel.entries.length } };
  });
}
