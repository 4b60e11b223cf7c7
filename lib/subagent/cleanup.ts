import { defineCommand } from "../core/command/spec.ts";
import { flag } from "../core/command/flag.ts";
import { listBatchFiles, readBatch } from "../core/batch/batch.ts";
import { usageError } from "../core/errors.ts";
import { assertId } from "../core/ids.ts";
import { lockPathFor, withLock } from "../core/fs/lock.ts";
import { displayPath } from "../core/project/paths.ts";
import { type Project, resolveProject } from "../core/project/project.ts";
import { listRecords, readRecord, recordSessions } from "../core/record/record.ts";
import { isTerminal, recordFileOf } from "../core/record/names_light.ts";
import { join } from "../core/std.ts";
import { exists } from "../core/fs/files.ts";

/**
 * Moves a finished record into the archive while holding its lock, after
 * checking again that it is terminal. The sidecar lock file goes too: with
 * the record gone nothing can recreate it, so no writer can be split across
 * two lock files.
 */
async function archiveRecord(path: string, target: string): Promise<boolean> {
  const moved = await withLock(path, async () => {
    const record = await readRecord(path).catch(() => undefined);
    if (!record || !isTerminal(record.status)) return false;
    await Deno.mkdir(join(target, ".."), { recursive: true });
    await Deno.rename(path, target);
    return true;
  });
  if (moved) await Deno.remove(lockPathFor(path)).catch(() => {});
  return moved;
}

async function move(from: string, to: string): Promise<void> {
  await Deno.mkdir(join(to, ".."), { recursive: true });
  await Deno.rename(from, to);
  await Deno.remove(lockPathFor(from)).catch(() => {});
}

export default defineCommand({
  name: "sub-agent cleanup",
  description:
    "Moves finished (done, failed, cancelled, timeout) dispatch records older than --older-than, counted from " +
    "their completion, to .peaks/_sub_agents/_archive/<sid>/; a batch file and its shared channel follow once " +
    "none of the batch's records is left. Records still queued, running, stale or never-started are never " +
    "touched, and broken records are reported, not moved. --dry-run only reports. --orphans instead lists " +
    "detached sub-agents whose supervisor is gone or whose session no longer exists; only --orphans --kill " +
    "stops them (live supervisors through their stop file, dead ones reconciled).",
  flags: {
    "older-than": flag.duration("Archive records finished longer ago than this.", {
      default: 30 * 86_400_000,
    }),
    session: flag.string("Only this session (default: every session).", {
      placeholder: "<sid>",
      max: 128,
    }),
    "dry-run": flag.boolean("Report what would move; change nothing."),
    orphans: flag.boolean("List orphan detached sub-agents instead of archiving; changes nothing."),
    kill: flag.boolean("With --orphans: stop or reconcile them (a user decision)."),
  },
  examples: [
    "peaks sub-agent cleanup --dry-run --json",
    "peaks sub-agent cleanup --older-than 7d --json",
    "peaks sub-agent cleanup --orphans --json",
  ],
  async run({ flags }, ctx) {
    if (flags.kill && !flags.orphans) {
      throw usageError("CONFLICTING_FLAGS", "--kill acts on orphans only: use --orphans --kill.", {
        data: { flag: "kill" },
      });
    }
    const project = await resolveProject(ctx);
    if (flags.orphans) {
      const { cleanupOrphans } = await import("./detached/_cleanup_orphans.ts");
      return await cleanupOrphans(ctx, project, {
        session: flags.session === undefined ? undefined : assertId(flags.session, "--session"),
        kill: flags.kill,
      });
    }
    const sids = flags.session === undefined
      ? await recordSessions(project)
      : [assertId(flags.session, "--session")];
    const cutoff = ctx.now().getTime() - flags["older-than"];
    const dry = flags["dry-run"];
    const archived: Array<{ recordPath: string; to: string }> = [];
    const batches: Array<{ batchId: string; to: string }> = [];
    const unreadable: string[] = [];
    let kept = 0;
    for (const sid of sids) {
      const archive = project.layout.archiveDir(sid);
      const listing = await listRecords(project, sid);
      unreadable.push(...listing.unreadable.map((u) => displayPath(project.root, u.path)));
      const remaining = new Set(listing.unreadable.map((u) => recordFileOf(u.path)));
      for (const { path, record } of listing.records) {
        const finishedAt = Date.parse(record.completedAt ?? record.updatedAt);
        const due = isTerminal(record.status) && Number.isFinite(finishedAt) &&
          finishedAt <= cutoff;
        const target = join(archive, recordFileOf(path));
        if (due && (dry || await archiveRecord(path, target))) {
          archived.push({
            recordPath: displayPath(project.root, path),
            to: displayPath(project.root, target),
          });
        } else {
          kept++;
          remaining.add(recordFileOf(path));
        }
      }
      for (const file of await listBatchFiles(project, sid)) {
        const batch = await readBatch(project, sid, file.batchId).catch(() => undefined);
        if (!batch || batch.members.some((m) => remaining.has(m.record))) continue;
        const to = join(archive, `batch-${file.batchId}.json`);
        batches.push({ batchId: file.batchId, to: displayPath(project.root, to) });
        if (dry) continue;
        await move(file.path, to);
        const channel = project.layout.sharedChannel(sid, file.batchId);
        if (await exists(channel)) {
          await move(channel, join(archive, "shared", `${file.batchId}.json`));
        }
      }
    }
    return {
      data: {
        projectRoot: project.root,
        dryRun: dry,
        olderThanMs: flags["older-than"],
        sessions: sids,
        archived,
        batches,
        kept,
        unreadable,
      },
      human: `${
        dry ? "would archive" : "archived"
      } ${archived.length} record(s) and ${batches.length} batch(es); kept ${kept}${
        unreadable.length ? `; ${unreadable.length} unreadable left in place` : ""
      }`,
    };
  },
});
