import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { PeaksError, usageError, type Warning } from "../../infra/errors.ts";
import { displayPath } from "../../workspace/paths.ts";
import { type Project, resolveProject } from "../../workspace/project.ts";
import { type DispatchRecord, readRecord, type SubAgentResult } from "../../record/record.ts";
import { checkState, loadSchemas, stateSchema } from "../../infra/shape/lazy.ts";
import { SUB_AGENT_RESULT_SHAPE } from "../../state/shapes.ts";
import { finalizeRecord } from "../../record/terminal.ts";
import { isTerminal, type Outcome } from "../../state/record.ts";
import { describeIssues } from "../../infra/fs/json.ts";
import { auditRecord, type RecordAudit } from "../../finalize/audit.ts";
import { runningSlice, selectTargets, type Skipped } from "../../finalize/targets.ts";
import type { Ctx } from "../../infra/command/ctx.ts";
import { withoutEmpty } from "../../infra/command/lean.ts";
import { workingTreeChanges } from "../../infra/git.ts";
import { reviewChanges } from "../../finalize/changes.ts";
import { resolveSession, type SessionContext } from "../../session/session.ts";
import { nextStep, stepActions, stepData } from "../../workflow/next.ts";
import { followPhase } from "../../workflow/follow.ts";
import { assertJsonDepth } from "../../infra/json_input.ts";
import { isoTime } from "../../infra/ids.ts";

async function stopDetached(project: Project, path: string, record: DispatchRecord, now: Date) {
  const { runOf, stopRun } = await import("../../detached/control.ts");
  return await stopRun(project, runOf(project, path, record), "cancelled", now);
}

const RESULT_JSON_MAX = 64 * 1024;

/**
 * The return contract, checked by its shape first: a result with every field in place needs no
 * zod; one the shape doubts (a default to fill, a wrong type) goes to the schema, which decides.
 */
const SubAgentResultInput = stateSchema<SubAgentResult>(
  SUB_AGENT_RESULT_SHAPE,
  () =>
    import("../../state/record.ts").then((m) => loadSchemas(m.recordSchemas)).then((s) =>
      s.SubAgentResultSchema
    ),
);

async function parseResult(raw: string | undefined): Promise<SubAgentResult | null> {
  if (raw === undefined) return null;
  assertJsonDepth(raw, "result-json");
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw usageError(
      "INVALID_RESULT_JSON",
      "--result-json is not valid JSON; pass the sub-agent's final message as one quoted argument.",
      { data: { flag: "result-json" } },
    );
  }
  const parsed = await checkState(SubAgentResultInput, value);
  if (!parsed.success) {
    throw usageError(
      "INVALID_RESULT_JSON",
      `--result-json does not match the return contract {role, rid, status: ok|blocked|skipped, artefacts, warnings, blockedReason, reason, diffSummary}: ${
        describeIssues(parsed.error)
      }.`,
      { data: { flag: "result-json" } },
    );
  }
  return parsed.data;
}

/** Flag checks that need no record: one result for many records, a --worktree outside the repository. */
async function checkFlags(
  ctx: Ctx,
  project: Project,
  flags: { batch?: string; "all-stale"?: boolean; worktree?: string },
  hasResult: boolean,
): Promise<void> {
  if (hasResult && (flags.batch !== undefined || flags["all-stale"])) {
    throw usageError(
      "CONFLICTING_FLAGS",
      "--result-json belongs to one record; use it with --record or --request-id.",
      { data: { flag: "result-json" } },
    );
  }
  if (flags.worktree !== undefined) {
    const { checkWorktreeFlag } = await import("../../slice/finalize.ts");
    await checkWorktreeFlag(ctx, project, flags.worktree);
  }
}

export default defineCommand({
  name: "sub-agent finalize",
  description:
    "Moves records to a terminal status (--outcome), stores --error and the validated --result-json as " +
    "record.result, and marks them disposed. A record that is already terminal keeps its status; the audit " +
    "runs again. The audit warns ARTIFACT_MISSING / ARTIFACT_CHANGED for artefacts that vanished or changed " +
    "after registration, and UNAUTHORIZED_COMMIT for commits on the branch since the record's gitHead. " +
    "data.audit.changes lists the working tree's changes since the dispatch; files peaks wrote (peaksFiles) and " +
    "files last written before the dispatch (beforeDispatch) are counted, not listed. An isolated slice is merged " +
    "back first, then audited. Swarm siblings share a request id, so finalize them by --record. --outcome cancelled on a live detached " +
    "record also stops its vendor through its supervisor (data.finalized[].detached).",
  flags: {
    record: flag.string("One record.", { placeholder: "<path>", max: 4096 }),
    "request-id": flag.string("The open record of this request.", {
      placeholder: "<rid>",
      max: 128,
    }),
    role: flag.string("With --request-id: the role whose record to close.", {
      placeholder: "<role>",
      max: 256,
    }),
    batch: flag.string("Every record of this batch.", { placeholder: "<id>", max: 128 }),
    "all-stale": flag.boolean("Every stale or never-started record of the session."),
    outcome: flag.enum(["done", "failed", "cancelled"], "The terminal status to set.", {
      required: true,
    }),
    error: flag.string("What went wrong (stored as record.error).", {
      placeholder: "<msg>",
      max: 2000,
    }),
    "result-json": flag.string("The sub-agent's return JSON.", {
      placeholder: "<json>",
      allowControl: true,
      max: RESULT_JSON_MAX,
    }),
    "session-id": flag.string("Session for --request-id, --batch and --all-stale.", {
      placeholder: "<sid>",
      max: 128,
    }),
    force: flag.boolean(
      "With --batch --outcome done: also close isolated slices still running (their worktrees are merged as they are and removed under their sub-agents).",
    ),
    worktree: flag.string(
      "A host-isolated slice's worktree (the worktreePath in Claude Code's notification that the agent finished); its change is merged back.",
      { placeholder: "<path>", max: 4096 },
    ),
  },
  examples: [
    `peaks sub-agent finalize --record .peaks/_sub_agents/<sid>/dispatch-<…>.json --outcome done --result-json '{"role":"rd","rid":"001-login","status":"ok","artefacts":[],"warnings":[]}' --json`,
    "peaks sub-agent finalize --batch <id> --outcome failed --error 'user stopped the swarm' --json",
    "peaks sub-agent finalize --all-stale --outcome cancelled --json",
  ],
  exitNotes: [
    "2  AMBIGUOUS_TARGET: several open records share the request id; use --record",
    "3  SLICE_CONFLICT: a slice's change overlaps; data.conflicts[].commands decide it",
  ],
  async run({ flags }, ctx) {
    const result = await parseResult(flags["result-json"]);
    const project = await resolveProject(ctx);
    await checkFlags(ctx, project, flags, result !== null);
    const targets = await selectTargets(ctx, project, flags);
    const at = isoTime(ctx.now());
    const warnings: Warning[] = [];
    const finalized: Record<string, unknown>[] = [];
    const skipped: Skipped[] = [...targets.skipped];
    const audits: Audited[] = [];
    const slices: Array<{ path: string; record: DispatchRecord }> = [];
    for (const path of targets.paths) {
      const running = await runningSlice(project, path, flags);
      if (running && skipped.push(running)) continue;
      let closed: Closed;
      try {
        closed = await closeOne(ctx, project, path, { ...flags, at }, result);
      } catch (error) {
        if (!(error instanceof PeaksError) || targets.paths.length === 1) throw error;
        skipped.push({
          recordPath: displayPath(project.root, path),
          reason: error.message,
          repair: error.nextActions[0] ?? null,
        });
        continue;
      }
      finalized.push(closed.entry);
      warnings.push(...closed.warnings);
      if (closed.after.worktree) {
        const { attachHostWorktree } = await import("../../slice/finalize.ts");
        closed.after = await attachHostWorktree(ctx, project, path, closed.after, flags.worktree);
        // Audited once merged back: a slice's files reach the main tree only then.
        slices.push({ path, record: closed.after });
        continue;
      }
      warnings.push(...await auditInto(project, path, closed.after, audits));
    }
    warnings.push(...skipped.map(skippedWarning));
    const data: Record<string, unknown> = { finalized, skipped };
    // Slices merge back first: the audit of their files, the change left for review and the next
    // step come after.
    if (slices.length) {
      await settleSlices(ctx, project, slices, { data, warnings }, async () => {
        for (const slice of slices) {
          const merged = await readRecord(slice.path).catch(() => undefined) ?? slice.record;
          warnings.push(...await auditInto(project, slice.path, merged, audits));
        }
        data.audit = auditCounts(warnings, audits);
      });
    }
    data.audit = auditCounts(warnings, audits);
    const [changes, following] = await Promise.all([
      workingTreeChanges(project.root),
      finalized.length === 1 ? afterFinalize(ctx, project, audits[0].record) : undefined,
    ]);
    // The change left for review, new files included: `git diff` alone misses those.
    const review = await reviewChanges(project.root, changes, dispatchedAt(audits));
    data.audit = withoutEmpty({
      ...data.audit as Record<string, unknown>,
      changes: review.changes,
      peaksFiles: review.peaksFiles || undefined,
      beforeDispatch: review.beforeDispatch || undefined,
    });
    return {
      data: withoutEmpty({ ...data, ...(following ? stepData(following) : {}) }),
      warnings: boundedWarnings(warnings),
      nextActions: [
        ...(following ? stepActions(following) : []),
        ...skipped.map((s) => s.repair).filter((a): a is string => a !== null),
      ],
      human: [
        `finalized ${finalized.length} record(s) as ${flags.outcome}${
          skipped.length ? `, skipped ${skipped.length}` : ""
        }`,
        ...finalized.map((f) => `  ${f.role} ${f.status} ${f.recordPath}`),
        ...review.lines,
      ].join("\n"),
    };
  },
});

function skippedWarning(skip: Skipped): Warning {
  return {
    code: "RECORD_SKIPPED",
    message: `${skip.recordPath} was not finalized (${skip.reason}).${
      skip.repair ? ` Repair: ${skip.repair}` : ""
    }`,
    recordPath: skip.recordPath,
  };
}

/** The workflow's next step for the finalized record's request; presence follows it. */
async function afterFinalize(ctx: Ctx, project: Project, record: DispatchRecord) {
  const active = await resolveSession(ctx, project).catch(() => undefined);
  const session: SessionContext = {
    project,
    sessionId: record.sessionId,
    sessionSource: active?.sessionId === record.sessionId ? "binding" : "flag",
  };
  const next = await nextStep(session, record.requestId);
  await followPhase(ctx.env, session, next.phase, ctx.now());
  return next;
}

/** Warnings shown of each code; the counts in data.audit cover all of them. */
const PROBLEMS_SHOWN = 20;

/** At most 20 warnings of each code, then one saying how many more there were. */
function boundedWarnings(warnings: Warning[]): Warning[] {
  const seen = new Map<string, number>();
  const kept = warnings.filter((w) => {
    const n = (seen.get(w.code) ?? 0) + 1;
    seen.set(w.code, n);
    return n <= PROBLEMS_SHOWN;
  });
  for (const [code, n] of seen) {
    if (n <= PROBLEMS_SHOWN) continue;
    kept.push({
      code: "WARNINGS_OMITTED",
      message: `${
        n - PROBLEMS_SHOWN
      } more ${code} warning(s) not shown; data.audit has the counts.`,
    });
  }
  return kept;
}

type Audited = { audit: RecordAudit; record: DispatchRecord };

/** The earliest dispatch among the finalized records (ms). */
function dispatchedAt(audits: Audited[]): number | undefined {
  const times = audits.map((a) => Date.parse(a.record.createdAt)).filter(Number.isFinite);
  return times.length ? Math.min(...times) : undefined;
}

/** Audits one record into `audits`; returns its warnings. */
async function auditInto(
  project: Project,
  path: string,
  record: DispatchRecord,
  audits: Audited[],
): Promise<Warning[]> {
  const { audit, warnings } = await auditRecord(project, path, record);
  audits.push({ audit, record });
  return warnings;
}

function auditCounts(warnings: Warning[], audits: Audited[]): Record<string, unknown> {
  const count = (code: string) => warnings.filter((w) => w.code === code).length;
  return {
    artifactsMissing: count("ARTIFACT_MISSING") || undefined,
    artifactsChanged: count("ARTIFACT_CHANGED") || undefined,
    unauthorizedCommits: audits.reduce(
      (n, a) => n + (a.audit.commits?.length ?? 0) + (a.audit.worktreeCommits?.length ?? 0),
      0,
    ) || undefined,
  };
}

/**
 * Merges the finalized slices back in DAG order, then audits them (`merged`); a conflict refuses
 * with everything finalize did.
 */
async function settleSlices(
  ctx: Ctx,
  project: Project,
  slices: Array<{ path: string; record: DispatchRecord }>,
  out: { data: Record<string, unknown>; warnings: Warning[] },
  merged: () => Promise<void>,
): Promise<void> {
  const { settleFinalized, sliceConflict } = await import("../../slice/finalize.ts");
  const settled = await settleFinalized(ctx, project, slices);
  out.warnings.push(...settled.warnings);
  out.data.slices = settled.steps;
  await merged();
  const shown = slices.map((s) => displayPath(project.root, s.path));
  const refusal = sliceConflict(project, settled.steps, shown, out.data);
  if (refusal) {
    refusal.warnings.push(...out.warnings);
    throw refusal;
  }
}

interface Closed {
  entry: Record<string, unknown>;
  after: DispatchRecord;
  warnings: Warning[];
}

/** Closes one record; a live detached one asked to cancel also has its vendor stopped. */
async function closeOne(
  ctx: Ctx,
  project: Project,
  path: string,
  flags: { outcome: Outcome; error?: string; at: string },
  result: SubAgentResult | null,
): Promise<Closed> {
  const shown = displayPath(project.root, path);
  const { before, after } = await finalizeRecord(project, path, {
    outcome: flags.outcome,
    error: flags.error,
    result,
    at: flags.at,
  });
  const warnings: Warning[] = [];
  const alreadyTerminal = isTerminal(before.status);
  // Cancelling a live detached record stops its vendor (a user decision); nothing else signals.
  const detached = flags.outcome === "cancelled" && !alreadyTerminal && before.mode === "detached"
    ? await stopDetached(project, path, after, ctx.now())
    : undefined;
  if (alreadyTerminal && before.status !== flags.outcome) {
    warnings.push({
      code: "OUTCOME_KEPT",
      message:
        `${shown} was already ${before.status}; it keeps that status (asked: ${flags.outcome}).`,
      recordPath: shown,
    });
  }
  if (result && (result.role !== after.role || result.rid !== after.requestId)) {
    warnings.push({
      code: "RESULT_MISMATCH",
      message:
        `The result names role ${result.role} / rid ${result.rid}, but the record is ${after.role} / ${after.requestId}.`,
      recordPath: shown,
    });
  }
  const entry = withoutEmpty({
    recordPath: shown,
    role: after.role,
    status: after.status,
    // Finalized before: this call only audited it again.
    ...(before.disposed ? { alreadyFinalized: true } : {}),
    resultStatus: after.result?.status,
    detached,
  });
  return { entry, after, warnings };
}
