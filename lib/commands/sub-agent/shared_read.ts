import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { readChannel } from "../../batch/channel.ts";
import { usageError } from "../../infra/errors.ts";
import { displayPath } from "../../workspace/paths.ts";
import { openSession } from "../../session/session.ts";
import { keyGlob, requireBatch } from "../../batch/channel_access.ts";
import { peaksLine } from "../../infra/shell.ts";

/** Values beyond this many bytes are left out unless asked for (--full or an exact --key). */
const OUTPUT_BUDGET = 16 * 1024;

export default defineCommand({
  name: "sub-agent shared-read",
  description:
    "Reads the batch's shared channel: every entry {key, value, from, at, valueSize}, oldest first, optionally " +
    "only keys matching a glob (--key 'rd*.completed') or written after --since. Past about 16 KB of values " +
    "the remaining values are left out (valueOmitted) with a command to read each; --full prints them all.",
  flags: {
    batch: flag.string("The batch id.", { placeholder: "<id>", required: true, max: 128 }),
    key: flag.string("Only keys matching this glob (* and ?).", {
      placeholder: "<glob>",
      max: 128,
    }),
    since: flag.string("Only entries written after this ISO time.", {
      placeholder: "<iso>",
      max: 64,
    }),
    full: flag.boolean("Print every value, however large the output."),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks sub-agent shared-read --batch <id> --json",
    "peaks sub-agent shared-read --batch <id> --key '*.completed' --since 2026-11-29T10:00:00Z --json",
  ],
  async run({ flags }, ctx) {
    const since = flags.since === undefined ? undefined : Date.parse(flags.since);
    if (since !== undefined && !Number.isFinite(since)) {
      throw usageError("INVALID_FLAG_VALUE", `--since must be an ISO time (got ${flags.since}).`, {
        data: { flag: "since" },
      });
    }
    const { project, sessionId } = await openSession(ctx, flags["session-id"]);
    const batchId = await requireBatch(project, sessionId, flags.batch);
    const channel = await readChannel(project, sessionId, batchId);
    const pattern = flags.key === undefined ? undefined : keyGlob(flags.key);
    const exact = flags.key !== undefined && !/[*?]/.test(flags.key);
    const selected = (channel?.entries ?? []).filter((e) =>
      (pattern === undefined || pattern.test(e.key)) &&
      (since === undefined || Date.parse(e.at) > since)
    );
    let budget = flags.full || exact ? Infinity : OUTPUT_BUDGET;
    const omitted: string[] = [];
    const entries = selected.map((entry) => {
      if (entry.valueSize <= budget) {
        budget -= entry.valueSize;
        return entry;
      }
      omitted.push(entry.key);
      return { ...entry, value: null, valueOmitted: true };
    });
    return {
      data: {
        projectRoot: project.root,
        batchId,
        channelPath: displayPath(project.root, project.layout.sharedChannel(sessionId, batchId)),
        entries,
        total: selected.length,
        evicted: channel?.evicted ?? 0,
      },
      nextActions: omitted.map((key) =>
        peaksLine(
          project.root,
          ["sub-agent", "shared-read", "--batch", batchId, "--key", key, "--session-id", sessionId],
          ["--json"],
        )
      ),
      human: entries.length
        ? entries.map((e) =>
          `${e.at}  ${e.key}  ${e.from ?? "-"}  ${
            "valueOmitted" in e ? "(omitted)" : JSON.stringify(e.value).slice(0, 100)
          }`
        ).join("\n")
        : "the channel is empty",
    };
  },
});
