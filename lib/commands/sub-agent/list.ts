import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import type { Warning } from "../../infra/errors.ts";
import { assertId } from "../../infra/ids.ts";
import { effectiveStatus, lastBeatAgeSec, lastProgress, liveness } from "../../record/liveness.ts";
import { displayPath } from "../../workspace/paths.ts";
import { listRecords } from "../../record/record.ts";
import { RECORD_STATUSES } from "../../state/record.ts";
import { openSession, peaksCommand } from "../../session/session.ts";

/** Artefacts shown per record: a record may register thousands; the list stays small. */
const ARTIFACTS_SHOWN = 10;
import { compactMeta } from "../../record/artifacts.ts";
import { safeField } from "../../infra/terminal_text.ts";
import { worktreeRow } from "../../record/worktree.ts";

export default defineCommand({
  name: "sub-agent list",
  description:
    "Lists the session's dispatch records, newest first, with their live status (never-started after 60 s " +
    "without a beat, stale after 5 minutes of silence), artefact metadata and, for an isolated slice, its " +
    "worktree (state, path, branch, patch). A broken record is listed under " +
    "data.unreadable with the command that moves it aside; it never hides the others.",
  flags: {
    "session-id": flag.string("Session to list instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
    batch: flag.string("Only this batch.", { placeholder: "<id>", max: 128 }),
    status: flag.enum(RECORD_STATUSES, "Only records with this (live) status."),
    limit: flag.int("Show at most this many records.", { min: 1, max: 10_000, default: 50 }),
    offset: flag.int("Skip this many records first (the next page starts at data.nextOffset).", {
      min: 0,
      max: 1_000_000,
      default: 0,
    }),
  },
  examples: [
    "peaks sub-agent list --json",
    "peaks sub-agent list --batch <id> --status stale --json",
  ],
  async run({ flags }, ctx) {
    const batch = flags.batch === undefined ? undefined : assertId(flags.batch, "--batch");
    const session = await openSession(ctx, flags["session-id"]);
    const { project, sessionId } = session;
    const now = ctx.now();
    const listing = await listRecords(project, sessionId);
    const rows = listing.records
      .filter(({ record }) => batch === undefined || record.batchId === batch)
      .map(({ path, record }) => ({
        recordPath: displayPath(project.root, path),
        role: record.role,
        requestId: record.requestId,
        batchId: record.batchId,
        dispatchedInBatch: record.dispatchedInBatch,
        status: effectiveStatus(record, now),
        progress: lastProgress(record),
        stage: record.stage,
        lastBeatAgeSec: lastBeatAgeSec(record, now),
        liveness: liveness(record, now),
        disposed: record.disposed,
        artifactCount: record.artifactMetas.length,
        // The newest few; `sub-agent artifact` and the record file hold them all.
        artifactMetas: record.artifactMetas.slice(-ARTIFACTS_SHOWN).map(compactMeta),
        ...(record.worktree ? { worktree: worktreeRow(project.root, record.worktree) } : {}),
      }))
      .filter((row) => flags.status === undefined || row.status === flags.status);
    const unreadable = listing.unreadable.map(({ path, error }) => ({
      recordPath: displayPath(project.root, path),
      reason: String(error.data.reason ?? error.message),
      repair: error.nextActions[0] ?? null,
    }));
    const warnings: Warning[] = unreadable.map((u) => ({
      code: "RECORD_UNREADABLE",
      message: `${u.recordPath} is unreadable (${u.reason}); move it aside with: ${u.repair}`,
      path: u.recordPath,
    }));
    const shown = rows.slice(flags.offset, flags.offset + flags.limit);
    const end = flags.offset + flags.limit;
    const nextOffset = end < rows.length ? end : null;
    const nextPage = nextOffset === null ? [] : [
      peaksCommand(session, [
        "sub-agent",
        "list",
        ...(batch ? ["--batch", batch] : []),
        ...(flags.status ? ["--status", flags.status] : []),
        "--limit",
        String(flags.limit),
        "--offset",
        String(nextOffset),
      ]),
    ];
    return {
      data: {
        projectRoot: project.root,
        sessionId,
        total: rows.length,
        offset: flags.offset,
        nextOffset,
        records: shown,
        unreadable,
      },
      warnings,
      nextActions: [
        ...unreadable.map((u) => u.repair).filter((a): a is string => a !== null),
        ...nextPage,
      ],
      human: shown.length ? listTable(shown) : "no dispatch records",
    };
  },
});

interface ListRow {
  status: string;
  progress: number;
  role: string;
  requestId: string;
  recordPath: string;
  worktree?: { state: string; path: string | null };
}

/** The human listing: a header row, then one row per record, columns padded to their widest cell. */
function listTable(rows: ListRow[]): string {
  const cells = rows.map((r) => [
    r.status,
    `${r.progress}%`,
    safeField(r.role),
    safeField(r.requestId),
    `${r.recordPath}${
      r.worktree
        ? `  [worktree ${r.worktree.state}${r.worktree.path ? ` ${r.worktree.path}` : ""}]`
        : ""
    }`,
  ]);
  const table = [["STATUS", "PROGRESS", "ROLE", "REQUEST", "RECORD"], ...cells];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  return table.map((row) =>
    row.map((cell, i) => i === row.length - 1 ? cell : cell.padEnd(widths[i])).join("  ")
  ).join("\n");
}
