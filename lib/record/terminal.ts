/**
 * How a record ends. `endRecord` is the one place a record moves to a
 * terminal status; `sub-agent finalize`, `swarm converge --finalize-open`,
 * the detached supervisor and the reconcile of a lost run all end records
 * through it. Stopping a live detached run is the finalize command's
 * decision, taken after the record is closed.
 */
import type { Project } from "../workspace/project.ts";
import type { DispatchRecord, SubAgentResult } from "./record.ts";
import { isTerminal, type Outcome } from "../state/record.ts";
import { updateExistingRecord, updateRecord } from "./record.ts";

/** The record with its terminal status: status and outcome, completedAt and updatedAt. */
export function endRecord(record: DispatchRecord, outcome: Outcome, at: string): DispatchRecord {
  return { ...record, status: outcome, outcome, completedAt: at, updatedAt: at };
}

export interface FinalizeChange {
  outcome: Outcome;
  error?: string;
  result?: SubAgentResult | null;
  at: string;
}

/**
 * Closes one record under its lock: the outcome (kept when the record
 * already ended), the error, the validated return JSON, and the disposal mark.
 */
export function finalizeRecord(
  project: Project,
  path: string,
  change: FinalizeChange,
): Promise<{ before: DispatchRecord; after: DispatchRecord }> {
  return updateExistingRecord(project, path, (before) => {
    const after: DispatchRecord = isTerminal(before.status)
      ? { ...before, updatedAt: change.at }
      : endRecord(before, change.outcome, change.at);
    if (change.error !== undefined) after.error = change.error;
    if (change.result) after.result = change.result;
    if (!before.disposed) {
      after.disposed = true;
      after.disposedAt = change.at;
    }
    return { value: after, result: { before, after } };
  });
}

export interface FailedOpen {
  /** True when this call marked the record failed. */
  marked: boolean;
  /** The outcome the record ended with, when it had already ended. */
  outcome?: Outcome;
}

/**
 * Marks a record that is still open as failed (an error it already carries
 * stays). A record that already ended keeps its outcome; a missing one is left alone.
 */
export function failOpenRecord(path: string, error: string, at: string): Promise<FailedOpen> {
  return updateRecord<FailedOpen>(path, (record) => {
    if (!record) return { result: { marked: false } };
    if (isTerminal(record.status)) {
      return { result: { marked: false, outcome: record.outcome ?? undefined } };
    }
    const next = { ...endRecord(record, "failed", at), error: record.error ?? error };
    return { value: next, result: { marked: true } };
  });
}
