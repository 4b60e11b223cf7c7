import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { listBatchFiles } from "../../batch/batch.ts";
import { archiveBatch, type ArchivedRecord, byBatch, finishedBefore } from "../../batch/archive.ts";
import { usageError } from "../../infra/errors.ts";
import { assertId } from "../../infra/ids.ts";
import { displayPath } from "../../workspace/paths.ts";
import { type Project, resolveProject } from "../../workspace/project.ts";
import { listRecords, recordSessions } from "../../record/record.ts";
import type { CommandResult } from "../../infra/command/spec.ts";
import type { Ctx } from "../../infra/command/ctx.ts";
import { peaksLine } from "../../infra/shell.ts";

/** Rows shown per list: cleanup of a big session must not print an unbounded envelope. */
const SHOWN_MAX = 200;

interface Archived {
  archived: ArchivedRecord[];
  batches: Array<{ batchId: string; to: string }>;
  kept: number;
  unreadable: Array<{ recordPath: string; reason: string; repair: string | null }>;
}

/** Archives the session's due batches, one batch at a time (see core/batch/archive.ts). */
async function archiveSession(
  project: Project,
  sid: string,
  options: { cutoff: number; dryRun: boolean },
  into: Archived,
): Promise<void> {
  const listing = await listRecords(project, sid);
  into.unreadable.push(...listing.unreadable.map(({ path, error }) => ({
    recordPath: displayPath(project.root, path),
    reason: String(error.data.reason ?? error.message),
    repair: error.nextActions[0] ?? null,
  })));
  const groups = byBatch(listing.records);
  for (const file of await listBatchFiles(project, sid)) {
    if (!groups.has(file.batchId)) groups.set(file.batchId, []);
  }
  for (const [batchId, known] of groups) {
    const done = known.length === 0 || known.every((e) => finishedBefore(e.record, options.cutoff));
    const moved = done
      ? await archiveBatch(project, sid, batchId, { ...options, known })
      : undefined;
    if (!moved) {
      into.kept += known.length;
      continue;
    }
    into.archived.push(...moved.records);
    into.kept += Math.max(0, known.length - moved.records.length);
    if (moved.to) into.batches.push({ batchId, to: moved.to });
  }
}

function unreadableWarnings(unreadable: Archived["unreadable"]) {
  return unreadable.slice(0, SHOWN_MAX).map((u) => ({
    code: "RECORD_UNREADABLE" as const,
    message: `${u.recordPath} is unreadable (${u.reason}) and was left in place${
      u.repair ? `; repair it with: ${u.repair}` : ""
    }.`,
    path: u.recordPath,
  }));
}

export default defineCommand({
  name: "sub-agent cleanup",
  description:
    "Moves finished batches to .peaks/_sub_agents/_archive/<sid>/: a batch (its records, batch file and " +
    "shared channel) moves once every member finished (done, failed, cancelled, timeout) longer ago than " +
    "--older-than; a batch with a member still queued, running, stale, never-started or unreadable stays " +
    "whole. Unreadable records are reported with their repair, never moved; a later dispatch into an " +
    "archived batch id numbers on after it. Lists show at most 200 rows (…Total has the count). " +
    "--dry-run only reports. --orphans instead lists " +
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
    orphans: flag.boolean(
      "List orphan detached sub-agents instead of archiving; changes nothing (--orphan works too).",
    ),
    orphan: flag.boolean("Same as --orphans.", { hidden: true }),
    kill: flag.boolean("With --orphans: stop or reconcile them (a user decision)."),
  },
  examples: [
    "peaks sub-agent cleanup --dry-run --json",
    "peaks sub-agent cleanup --older-than 7d --json",
    "peaks sub-agent cleanup --orphans --json",
  ],
  async run({ flags }, ctx) {
    const listOrphans = flags.orphans || flags.orphan;
    if (flags.kill && !listOrphans) {
      throw usageError("CONFLICTING_FLAGS", "--kill acts on orphans only: use --orphans --kill.", {
        data: { flag: "kill" },
      });
    }
    const project = await resolveProject(ctx);
    if (listOrphans) return await orphans(ctx, project, flags.session, flags.kill);
    // Slice worktrees first: a record is archived only once its worktree is settled and gone.
    const { cleanupWorktrees } = await import("../../slice/cleanup.ts");
    const worktrees = await cleanupWorktrees(ctx, project, flags["dry-run"]);
    const sids = flags.session === undefined
      ? await recordSessions(project)
      : [assertId(flags.session, "--session")];
    const cutoff = ctx.now().getTime() - flags["older-than"];
    const dry = flags["dry-run"];
    const found: Archived = { archived: [], batches: [], kept: 0, unreadable: [] };
    for (const sid of sids) await archiveSession(project, sid, { cutoff, dryRun: dry }, found);
    const { archived, batches, kept, unreadable } = found;
    return {
      data: {
        projectRoot: project.root,
        dryRun: dry,
        olderThanMs: flags["older-than"],
        sessions: sids,
        archived: archived.slice(0, SHOWN_MAX),
        archivedTotal: archived.length,
        batches: batches.slice(0, SHOWN_MAX),
        batchesTotal: batches.length,
        kept,
        unreadable: unreadable.map((u) => u.recordPath).slice(0, SHOWN_MAX),
        repairs: unreadable.slice(0, SHOWN_MAX),
        ...(worktrees ? { worktrees: worktrees.data } : {}),
      },
      warnings: [...(worktrees?.warnings ?? []), ...unreadableWarnings(unreadable)],
      nextActions: [
        ...(worktrees?.nextActions ?? []),
        ...unreadable.slice(0, SHOWN_MAX).map((u) => u.repair).filter((a): a is string =>
          a !== null
        ),
      ],
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
  const { cleanupOrphans } = await import("../../detached/cleanup_orphans.ts");
  const { worktreeOrphans } = await import("../../slice/cleanup.ts");
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
