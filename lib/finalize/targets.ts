/**
 * Which records a finalize call closes: one record, a request's record, a
 * whole batch, or every stale / never-started record of the session. A
 * broken record in a batch is skipped and reported, never a blocker.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { readBatch } from "../batch/batch.ts";
import { PeaksError, usageError } from "../infra/errors.ts";
import { assertId } from "../infra/ids.ts";
import { effectiveStatus } from "../record/liveness.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { listRecords, type RecordListing } from "../record/record.ts";
import { isTerminal } from "../state/record.ts";
import { quarantineCommand } from "../record/names.ts";
import { resolveSession } from "../session/session.ts";
import { resolveRecordFlag } from "../record/record_flag.ts";
import { batchNotFound } from "../batch/view.ts";
import { peaksLine } from "../infra/shell.ts";

export interface TargetFlags {
  record?: string;
  "request-id"?: string;
  role?: string;
  batch?: string;
  "all-stale": boolean;
  "session-id"?: string;
  outcome: string;
}

export interface Skipped {
  recordPath: string;
  reason: string;
  repair: string | null;
}

export interface Targets {
  paths: string[];
  skipped: Skipped[];
}

function checkSelectors(flags: TargetFlags): void {
  const chosen = [
    flags.record !== undefined && "--record",
    flags["request-id"] !== undefined && "--request-id",
    flags.batch !== undefined && "--batch",
    flags["all-stale"] && "--all-stale",
  ].filter(Boolean);
  if (chosen.length !== 1) {
    throw usageError(
      chosen.length ? "CONFLICTING_FLAGS" : "MISSING_FLAG",
      chosen.length
        ? `Choose one target, not ${chosen.join(" and ")}.`
        : "peaks sub-agent finalize needs a target: --record <path>, --request-id <rid>, --batch <id> or --all-stale.",
      { data: { flags: ["record", "request-id", "batch", "all-stale"] } },
    );
  }
  if (flags.role !== undefined && flags["request-id"] === undefined) {
    throw usageError(
      "CONFLICTING_FLAGS",
      "--role narrows --request-id; use it with --request-id.",
      {
        data: { flag: "role" },
      },
    );
  }
}

export async function selectTargets(
  ctx: Ctx,
  project: Project,
  flags: TargetFlags,
): Promise<Targets> {
  checkSelectors(flags);
  if (flags.record !== undefined) {
    return { paths: [(await resolveRecordFlag(ctx, project, flags.record)).path], skipped: [] };
  }
  const { sessionId } = await resolveSession(ctx, project, flags["session-id"]);
  const now = ctx.now();
  const listing = await listRecords(project, sessionId);
  if (flags["all-stale"]) {
    const paths = listing.records.filter(({ record }) => {
      const status = effectiveStatus(record, now);
      return status === "stale" || status === "never-started";
    }).map((e) => e.path);
    return { paths, skipped: [] };
  }
  if (flags.batch !== undefined) {
    return await batchTargets(project, sessionId, assertId(flags.batch, "--batch"), listing);
  }
  const rid = assertId(flags["request-id"]!, "--request-id");
  return requestTargets(project, sessionId, listing, { ...flags, rid }, now);
}

/** Every record of a batch; one that is unreadable or gone is skipped, with its repair. */
async function batchTargets(
  project: Project,
  sessionId: string,
  batchId: string,
  listing: RecordListing,
): Promise<Targets> {
  const batch = await readBatch(project, sessionId, batchId).catch(() => undefined);
  const members = new Set(
    (batch?.members ?? []).map((m) => project.layout.dispatchRecord(sessionId, m.record)),
  );
  for (const { path, record } of listing.records) {
    if (record.batchId === batchId) members.add(path);
  }
  if (members.size === 0) throw batchNotFound(project, sessionId, batchId);
  const broken = new Map(listing.unreadable.map((u) => [u.path, u.error]));
  const paths: string[] = [];
  const skipped: Skipped[] = [];
  for (const path of members) {
    const error = broken.get(path);
    if (error) {
      skipped.push({
        recordPath: displayPath(project.root, path),
        reason: `unreadable: ${String(error.data.reason ?? error.message)}`,
        repair: quarantineCommand(path),
      });
    } else if (listing.records.some((e) => e.path === path)) {
      paths.push(path);
    } else {
      skipped.push({
        recordPath: displayPath(project.root, path),
        reason: "missing: the batch lists it but the file is gone",
        repair: null,
      });
    }
  }
  return { paths, skipped };
}

/** The open record of a request (and role); several open ones need --record or --role. */
function requestTargets(
  project: Project,
  sessionId: string,
  listing: RecordListing,
  flags: TargetFlags & { rid: string },
  now: Date,
): Targets {
  const { rid } = flags;
  const matches = listing.records.filter(({ record }) =>
    record.requestId === rid && (flags.role === undefined || record.role === flags.role)
  );
  if (matches.length === 0) {
    throw new PeaksError(
      "RECORD_NOT_FOUND",
      `No dispatch record for request ${rid}${
        flags.role ? ` and role ${flags.role}` : ""
      } in session ${sessionId}.`,
      {
        data: { requestId: rid, role: flags.role ?? null },
        nextActions: [
          peaksLine(project.root, ["sub-agent", "list", "--session-id", sessionId]),
        ],
      },
    );
  }
  const open = matches.filter(({ record }) => !isTerminal(record.status));
  if (open.length > 1 && flags.role === undefined) {
    const candidates = open.map(({ path, record }) => ({
      recordPath: displayPath(project.root, path),
      role: record.role,
      status: effectiveStatus(record, now),
    }));
    throw usageError(
      "AMBIGUOUS_TARGET",
      `${open.length} open records share request ${rid} (${
        candidates.map((c) => c.role).join(", ")
      }); finalize each by --record, or add --role.`,
      {
        data: { requestId: rid, candidates },
        nextActions: candidates.map((c) =>
          peaksLine(project.root, [
            "sub-agent",
            "finalize",
            "--record",
            c.recordPath,
            "--outcome",
            flags.outcome,
          ])
        ),
      },
    );
  }
  return { paths: (open.length ? open : matches).map((e) => e.path), skipped: [] };
}

/**
 * A member of a `--batch` that `--outcome done` would cut off: an isolated
 * slice whose record is not terminal yet, so its sub-agent may still be
 * writing in its worktree. Skipped (named, with the command that forces it)
 * unless `--force`; undefined when it may be closed.
 */
export async function runningSlice(
  project: Project,
  path: string,
  flags: { batch?: string; outcome: string; force?: boolean },
): Promise<Skipped | undefined> {
  if (flags.batch === undefined || flags.outcome !== "done" || flags.force) return undefined;
  const { readRecord } = await import("../record/record.ts");
  const record = await readRecord(path).catch(() => undefined);
  if (!record?.worktree || isTerminal(record.status)) return undefined;
  const shown = displayPath(project.root, path);
  return {
    recordPath: shown,
    reason: `${shown} is still ${record.status}: its sub-agent may be writing in ${
      record.worktree.path ?? "its worktree"
    }. Closing it now would merge half-written files and remove the worktree under it; wait for it to finish, or add --force to cut it off.`,
    repair: null, // the right step is to wait; --force is the caller's own decision
  };
}
