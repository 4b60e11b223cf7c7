/**
 * The resource budget of detached mode: at most --max-concurrent live
 * detached sub-agents per project, counted from pid files whose supervisor
 * still holds its lease. Dead pid files are reconciled on the way, never
 * counted. The count is checked once before the record is written and again
 * under a project lock right before the supervisor starts, so concurrent
 * dispatches cannot overshoot together.
 */
import { countLive, type LiveCount, type Reconciled, recordPathOf, type RunEntry } from "./runs.ts";
import { gateError, type PeaksError, type Warning } from "../infra/errors.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { readRecord } from "../record/record.ts";
import { peaksLine } from "../infra/shell.ts";

export interface LiveRun {
  runDir: string;
  recordPath: string;
  sessionId: string;
  requestId: string;
  role: string | null;
  batchId: string | null;
  vendor: string | null;
}

export async function describeLive(project: Project, entries: RunEntry[]): Promise<LiveRun[]> {
  return await Promise.all(entries.map(async (entry) => {
    const path = recordPathOf(project, entry);
    const record = await readRecord(path).catch(() => undefined);
    return {
      runDir: displayPath(project.root, entry.dir),
      recordPath: displayPath(project.root, path),
      sessionId: entry.sessionId,
      requestId: entry.requestId,
      role: record?.role ?? null,
      batchId: record?.batchId ?? null,
      vendor: record?.vendor ?? null,
    };
  }));
}

export function reconciledWarning(reconciled: Reconciled[]): Warning[] {
  if (reconciled.length === 0) return [];
  return [{
    code: "DETACHED_RECONCILED",
    message:
      `${reconciled.length} detached run(s) had lost their supervisor; their pid files were removed and their records marked failed.`,
    runs: reconciled.map((r) => r.runDir),
  }];
}

export interface BudgetCheck {
  count: LiveCount;
  over: boolean;
}

export async function checkBudget(
  project: Project,
  now: Date,
  maxConcurrent: number,
): Promise<BudgetCheck> {
  const count = await countLive(project, now);
  return { count, over: count.live.length >= maxConcurrent };
}

/** RESOURCE_BUDGET_EXCEEDED with the --no-throttle re-run and a watch on a live batch. */
export async function budgetExceeded(
  project: Project,
  count: LiveCount,
  maxConcurrent: number,
  noThrottleRerun: string,
): Promise<PeaksError> {
  const runs = await describeLive(project, count.live);
  const watched = runs.find((r) => r.batchId !== null);
  const watch = watched
    ? [
      peaksLine(project.root, [
        "sub-agent",
        "watch",
        "--batch",
        watched.batchId!,
        "--session-id",
        watched.sessionId,
        "--interval",
        "2s",
      ]),
    ]
    : [];
  return gateError(
    "RESOURCE_BUDGET_EXCEEDED",
    `${count.live.length} detached sub-agents are already running in this project (--max-concurrent ${maxConcurrent}); wait for one to finish, or re-run with --no-throttle.`,
    {
      data: { live: count.live.length, maxConcurrent, runs },
      nextActions: [noThrottleRerun, ...watch],
      instructions: [
        "Waiting is the safe choice: watch the running batch until a slot frees up, then dispatch again.",
        "--no-throttle starts the sub-agent anyway; every one of them is a separate vendor process using memory, CPU and tokens.",
      ],
      warnings: reconciledWarning(count.reconciled),
    },
  );
}
