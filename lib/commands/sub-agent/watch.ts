import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { readBatchMembers } from "../../batch/members.ts";
import { batchCounts, batchStatusLine, type MemberView } from "../../batch/status_line.ts";
import { gateError, PeaksError } from "../../infra/errors.ts";
import { liveness } from "../../record/liveness.ts";
import { isTerminal } from "../../state/record.ts";
import { openSession } from "../../session/session.ts";
import { batchNotFound, chooseBatch, chooseLabel, memberRows } from "../../batch/view.ts";
import { sleep } from "../../infra/timer.ts";
import { updateRecord } from "../../record/record.ts";
import { peaksLine } from "../../infra/shell.ts";
import { isoTime } from "../../infra/ids.ts";

/** Writes `stale` / `never-started` into records that reached it, re-checked under each lock. */
async function persistMarks(members: MemberView[], now: Date): Promise<void> {
  for (const member of members) {
    const record = member.record;
    if (!record || (member.status !== "stale" && member.status !== "never-started")) continue;
    if (record.status === member.status) continue;
    await updateRecord(member.recordPath, (fresh) => {
      if (!fresh || isTerminal(fresh.status)) return { result: undefined };
      const live = liveness(fresh, now);
      if (live !== "stale" && live !== "never-started") return { result: undefined };
      if (fresh.status === live) return { result: undefined };
      return { value: { ...fresh, status: live, updatedAt: isoTime(now) }, result: undefined };
    }).catch(() => undefined);
  }
}

export default defineCommand({
  name: "sub-agent watch",
  description:
    "Polls a batch (default: the most recent) every --interval and prints its status line whenever it changes: " +
    "redrawn in place on a terminal, one line per change otherwise. Members found stale or never-started are " +
    "marked so in their records (nothing is ever cancelled or killed). Ends when every member has finished: " +
    "exit 0 when all are done, 1 when any failed or was cancelled; at --timeout it stops with exit 3 and " +
    "leaves the members as they are.",
  flags: {
    batch: flag.string("The batch to watch.", { placeholder: "<id>", max: 128 }),
    interval: flag.duration("Time between polls.", { default: 10_000, min: 100, max: 600_000 }),
    timeout: flag.duration("Stop watching after this long (exit 3)."),
    label: flag.string("Label in brackets (default: the active skill).", {
      placeholder: "<name>",
      max: 40,
    }),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks sub-agent watch",
    "peaks sub-agent watch --batch <id> --interval 5s --timeout 20m",
  ],
  exitNotes: [
    "1  a member failed, was cancelled or timed out",
    "3  WATCH_TIMEOUT: --timeout passed before every member finished",
  ],
  async run({ flags }, ctx) {
    const { project, sessionId } = await openSession(ctx, flags["session-id"]);
    const [batchId, label] = await Promise.all([
      chooseBatch(project, sessionId, flags.batch),
      chooseLabel(ctx, project, sessionId, flags.label),
    ]);
    if (batchId === undefined) {
      throw new PeaksError(
        "BATCH_NOT_FOUND",
        `Session ${sessionId} has no sub-agent batch to watch yet; dispatch one first.`,
        { data: { sessionId } },
      );
    }
    const tty = ctx.stdout.isTerminal;
    const stream = !ctx.global.json;
    const started = Date.now();
    let last = "";
    let changes = 0;
    while (true) {
      const now = ctx.now();
      const members = await readBatchMembers(project, sessionId, batchId, now);
      if (members.length === 0) throw batchNotFound(project, sessionId, batchId);
      await persistMarks(members, now);
      const line = batchStatusLine(label, members);
      if (line !== last) {
        changes++;
        if (stream) await ctx.stdout.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
        last = line;
      }
      const counts = batchCounts(members);
      const data = {
        projectRoot: project.root,
        sessionId,
        batchId,
        line,
        counts,
        changes,
        members: memberRows(project, members),
      };
      if (counts.open === 0) {
        if (stream && tty) await ctx.stdout.write("\n");
        return { data, exitCode: counts.done === counts.total ? 0 : 1, raw: true };
      }
      const elapsed = Date.now() - started;
      if (flags.timeout !== undefined && elapsed >= flags.timeout) {
        if (stream && tty) await ctx.stdout.write("\n");
        throw gateError(
          "WATCH_TIMEOUT",
          `${counts.open} of ${counts.total} members were still running when the watch timed out; nothing was changed.`,
          {
            data,
            nextActions: [
              peaksLine(project.root, ["sub-agent", "status", "--batch", batchId]),
            ],
          },
        );
      }
      const wait = flags.timeout === undefined
        ? flags.interval
        : Math.min(flags.interval, Math.max(0, flags.timeout - elapsed));
      await sleep(wait);
    }
  },
});
