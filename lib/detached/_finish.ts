/**
 * The end of a run, whatever ended it: the outcome from how the vendor
 * stopped and from what its structured output said (refused tool calls, API
 * and login errors, a `blocked` return JSON never end `done`), the record
 * closed under its lock (a record already finished by the sub-agent or by
 * finalize keeps its status), then exit.json and the final status.json. The
 * caller removes the pid file afterwards.
 */
import { formatDuration } from "../infra/command/spec.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { runFile, type RunStatus } from "./runs.ts";
import { applyBeat } from "../record/heartbeat.ts";
import { lastProgress } from "../record/liveness.ts";
import type { SubAgentResult } from "../record/record.ts";
import { isTerminal, type Outcome } from "../state/record.ts";
import { endRecord } from "../record/terminal.ts";
import { updateRecord } from "../record/record.ts";
import { findResult, resultFromLog } from "./_result_scan.ts";
import type { RunFiles } from "./run_files.ts";
import type { VendorReport } from "./vendor_output.ts";
import { exists } from "../infra/fs/files.ts";
import { isoTime } from "../infra/ids.ts";

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
  /** What the vendor's structured output said, once it ended. */
  report: VendorReport | null;
  /** The end of the vendor's stderr, for a failure its output does not explain. */
  stderrTail: string;
  /** That stderr talks about credentials (no key, not logged in). */
  stderrAuth: boolean;
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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** What the vendor's own output blames, if anything: its error, a login problem, refusals. */
function blameOf(vendor: string, report: VendorReport | null): Omit<Verdict, "outcome"> | null {
  if (!report) return null;
  const last = report.errors.at(-1);
  const status = report.httpStatus ? ` (HTTP ${report.httpStatus})` : "";
  if (report.failed && report.auth) {
    return {
      reason: "auth",
      error: `${vendor} could not authenticate${status}: ${last ?? "no credentials"}`,
    };
  }
  if (report.failed) {
    return {
      reason: "api-error",
      error: `${vendor} reported an error${status}: ${last ?? "the run failed"}`,
    };
  }
  if (report.refusals.length) {
    const shown = report.refusals.slice(0, 3).join("; ");
    const more = report.refusals.length > 3 ? `; and ${report.refusals.length - 3} more` : "";
    return {
      reason: "refused",
      error: `${vendor} refused ${plural(report.refusals.length, "tool call")}: ${shown}${more}`,
    };
  }
  return null;
}

function verdictOf(
  state: RunState,
  how: "spawn-failed" | "exited" | "crashed",
  vendor: string,
  timeoutMs: number,
  result: SubAgentResult | null,
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
  return exitedVerdict(state, vendor, result);
}

/** A vendor that exited by itself: its exit code, its structured output and its stderr decide. */
function exitedVerdict(state: RunState, vendor: string, result: SubAgentResult | null): Verdict {
  const blame = blameOf(vendor, state.report);
  if (state.exitCode === 0) {
    if (blame) return { outcome: "failed", ...blame };
    if (result?.status === "blocked") {
      return {
        outcome: "failed",
        reason: "blocked",
        error: `${vendor} returned blocked: ${
          result.blockedReason ?? result.reason ?? "no reason given"
        }`,
      };
    }
    return { outcome: "done", reason: "exit", error: null };
  }
  // A vendor that failed before its structured output started may still say why on stderr.
  const stderrBlame = !blame && state.stderrAuth && state.exitCode !== null
    ? { reason: "auth", error: `${vendor} could not authenticate: ${state.stderrTail}` }
    : null;
  if (stderrBlame) {
    return {
      outcome: "failed",
      reason: stderrBlame.reason,
      error: `${stderrBlame.error} (exit code ${state.exitCode})`.slice(0, 1000),
    };
  }
  const ended = state.signal
    ? `${vendor} was killed by ${state.signal}`
    : `${vendor} exited with code ${state.exitCode}`;
  const error = blame
    ? `${blame.error} (${
      state.signal ? `killed by ${state.signal}` : `exit code ${state.exitCode}`
    })`
    : state.stderrTail
    ? `${ended}: ${state.stderrTail}`
    : ended;
  return { outcome: "failed", reason: blame?.reason ?? "exit", error: error.slice(0, 1000) };
}

async function closeRecord(
  ctx: Ctx,
  path: string,
  verdict: Verdict,
  result: SubAgentResult | null,
): Promise<Outcome> {
  if (!(await exists(path))) return verdict.outcome;
  const now = ctx.now();
  const at = isoTime(now);
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
  await files.closeLog();
  // The return JSON: from the vendor's own final message first, else from the log's tail.
  const fromOutput = state.report?.finalText ? findResult(state.report.finalText) : null;
  const result = how === "exited"
    ? fromOutput ?? await resultFromLog(runFile(files.dir, "log"))
    : null;
  const verdict = verdictOf(state, how, base.vendor, base.timeoutMs, result);
  let outcome = verdict.outcome;
  try {
    outcome = await closeRecord(ctx, recordPath, verdict, result);
  } catch {
    // An unreadable or locked record: exit.json still tells what happened.
  }
  const endedAt = isoTime(ctx.now());
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
