/**
 * The end of a run, whatever ended it: the outcome from how the vendor
 * stopped, the record closed under its lock (a record already finished by
 * the sub-agent or by finalize keeps its status), then exit.json and the
 * final status.json. The caller removes the pid file afterwards.
 */
import { formatDuration } from "../../core/command/spec.ts";
import type { Ctx } from "../../core/command/ctx.ts";
import { runFile, type RunStatus } from "../../core/detached/runs.ts";
import { applyBeat } from "../_heartbeat_update.ts";
import { lastProgress } from "../../core/record/liveness.ts";
import type { SubAgentResult } from "../../core/record/record.ts";
import { isTerminal, type Outcome } from "../../core/record/names_light.ts";
import { endRecord } from "../../core/record/terminal.ts";
import { updateRecord } from "../../core/record/record.ts";
import { resultFromLog } from "./_result_scan.ts";
import type { RunFiles } from "./_run_files.ts";
import { exists } from "../../core/fs/files.ts";

export type StopReason = "timeout" | "cancelled" | "record-missing" | "signal";

export interface RunState {
  startedAt: Date;
  deadline: Date;
  childPid: number | null;
  outputBytes: number;
  lastOutputAt: Date | null;
  stopReason: StopReason | null;
  stopSignal: string | null;
  spawnError: string | null;
  exitCode: number | null;
  signal: string | null;
  recordEnded: boolean;
}

export interface Supervised {
  outcome: Outcome;
  exitCode: number | null;
  signal: string | null;
  reason: string;
}

interface Verdict {
  outcome: Outcome;
  reason: string;
  error: string | null;
}

function verdictOf(
  state: RunState,
  how: "spawn-failed" | "exited" | "crashed",
  vendor: string,
  timeoutMs: number,
): Verdict {
  if (how !== "exited") return { outcome: "failed", reason: how, error: state.spawnError };
  switch (state.stopReason) {
    case "timeout":
      return {
        outcome: "timeout",
        reason: "timeout",
        error: `${vendor} was stopped at the ${formatDuration(timeoutMs)} timeout`,
      };
    case "cancelled":
      return { outcome: "cancelled", reason: "cancelled", error: null };
    case "record-missing":
      return {
        outcome: "cancelled",
        reason: "cancelled",
        error: "the dispatch record disappeared while the sub-agent ran",
      };
    case "signal":
      return {
        outcome: "cancelled",
        reason: "signal",
        error: `the supervisor received ${state.stopSignal ?? "a signal"} and stopped ${vendor}`,
      };
  }
  if (state.exitCode === 0) return { outcome: "done", reason: "exit", error: null };
  return {
    outcome: "failed",
    reason: "exit",
    error: state.signal
      ? `${vendor} was killed by ${state.signal}`
      : `${vendor} exited with code ${state.exitCode}`,
  };
}

async function closeRecord(
  ctx: Ctx,
  path: string,
  verdict: Verdict,
  result: SubAgentResult | null,
): Promise<Outcome> {
  if (!(await exists(path))) return verdict.outcome;
  const now = ctx.now();
  const at = now.toISOString();
  return await updateRecord(path, (record) => {
    if (!record) return { result: verdict.outcome };
    const own = result && result.role === record.role && result.rid === record.requestId
      ? result
      : null;
    if (isTerminal(record.status)) {
      const value = own && record.result === null
        ? { ...record, result: own, updatedAt: at }
        : undefined;
      return { value, result: record.outcome ?? verdict.outcome };
    }
    let next = record;
    if (verdict.outcome === "done" || verdict.outcome === "failed") {
      next = applyBeat(record, {
        status: verdict.outcome,
        progress: verdict.outcome === "done" ? 100 : lastProgress(record),
        note: verdict.outcome === "done" ? "completed" : (verdict.error ?? "failed").slice(0, 200),
        stage: "finalizing",
      }, now).next;
    }
    next = {
      ...endRecord(next, verdict.outcome, at),
      error: verdict.error ?? next.error,
      result: next.result ?? own,
    };
    return { value: next, result: verdict.outcome };
  });
}

export async function finishRun(
  ctx: Ctx,
  recordPath: string,
  files: RunFiles,
  state: RunState,
  status: (phase: RunStatus["state"]) => RunStatus,
  how: "spawn-failed" | "exited" | "crashed",
): Promise<Supervised> {
  const base = status("exited");
  const verdict = verdictOf(state, how, base.vendor, base.timeoutMs);
  await files.closeLog();
  const result = how === "exited" ? await resultFromLog(runFile(files.dir, "log")) : null;
  let outcome = verdict.outcome;
  try {
    outcome = await closeRecord(ctx, recordPath, verdict, result);
  } catch {
    // An unreadable or locked record: exit.json still tells what happened.
  }
  const endedAt = ctx.now().toISOString();
  await files.writeExit({
    exitCode: state.exitCode,
    signal: state.signal,
    outcome,
    endedAt,
    reason: verdict.reason,
    error: verdict.error,
  }).catch(() => {});
  await files.writeStatus({ ...status("exited"), outcome, endedAt }).catch(() => {});
  return { outcome, exitCode: state.exitCode, signal: state.signal, reason: verdict.reason };
}
