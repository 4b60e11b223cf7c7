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
import type { CommandResult } from "../core/command/spec.ts";
import type { Ctx } from "../core/command/ctx.ts";
import { peaksLine } from "../core/shell.ts";

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
    "stops them (live supervisors through their stop file, dead ones reconciled). Slice worktrees: the normal " +
    "run finishes what a killed peaks left (a creation, merge or removal), removes the worktrees of records " +
    "that ended unmerged (their change saved as a patch) and lists slices waiting for a decision " +
    "(data.worktrees); --orphans also lists worktrees no record names, and --orphans --kill saves their " +
    "change as a patch under .peaks/_sub_agents/_archive/worktrees/ and removes them.",
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
    if (flags.orphans) return await orphans(ctx, project, flags.session, flags.kill);
    // Slice worktrees first: a record is archived only once its worktree is settled and gone.
    const { cleanupWorktrees } = await import("./_cleanup_worktrees.ts");
    const worktrees = await cleanupWorktrees(ctx, project, flags["dry-run"]);
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
          finishedAt <= cutoff && (!record.worktree || record.worktree.removedAt !== null);
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
        ...(worktrees ? { worktrees: worktrees.data } : {}),
      },
      warnings: worktrees?.warnings ?? [],
      nextActions: worktrees?.nextActions ?? [],
      human: `${
        dry ? "would archive" : "archived"
      } ${archived.length} record(s) and ${batches.length} batch(es); kept ${kept}${
        unreadable.length ? `; ${unreadable.length} unreadable left in place` : ""
      }`,
    };
  },
});

/** `--orphans`: detached runs whose supervisor or session is gone, and worktrees no record names. */
async function orphans(
  ctx: Ctx,
  project: Project,
  session: string | undefined,
  kill: boolean,
): Promise<CommandResult<unknown>> {
  const { cleanupOrphans } = await import("./detached/_cleanup_orphans.ts");
  const { worktreeOrphans } = await import("./_cleanup_worktrees.ts");
  const result = await cleanupOrphans(ctx, project, {
    session: session === undefined ? undefined : assertId(session, "--session"),
    kill,
  });
  const worktrees = await worktreeOrphans(project, kill);
  return withWorktreeOrphans(project, result, worktrees?.rows ?? [], kill);
}

/** `--orphans` lists (and `--kill` removes) orphan slice worktrees next to the detached runs. */
function withWorktreeOrphans(
  project: Project,
  result: CommandResult<unknown>,
  rows: Array<{ path: string; action: string; patch: string | null }>,
  kill: boolean,
): CommandResult<unknown> {
  if (!rows.length) return result;
  const data = { ...(result.data as Record<string, unknown>) };
  data.worktreeOrphans = rows.map((r) => ({ ...r, path: displayPath(project.root, r.path) }));
  const next = kill ? result.nextActions ?? [] : [
    ...new Set([
      ...(result.nextActions ?? []),
      peaksLine(project.root, ["sub-agent", "cleanup", "--orphans", "--kill"]),
    ]),
  ];
  return {
    ...result,
    data,
    nextActions: next,
    human: [
      result.human ?? "",
      `${rows.length} orphan slice worktree(s)${
        kill ? " removed (changes saved as patches)" : ""
      }:`,
      ...rows.map((r) =>
        `  ${r.action} ${displayPath(project.root, r.path)}${r.patch ? ` -> ${r.patch}` : ""}`
      ),
    ].join("\n"),
  };
}
