/**
 * Moving one record to a terminal status, under its lock: the outcome (kept
 * when the record already ended), the error, the validated return JSON, and
 * the disposal mark. `sub-agent finalize` and `swarm converge --finalize-open`
 * close records through this one function. Stopping a live detached run is
 * the finalize command's decision, taken after the record is closed.
 */
import type { Project } from "../project/project.ts";
import {
  type DispatchRecord,
  RecordFileSchema,
  recordNotFound,
  recordReadOptions,
  type SubAgentResult,
} from "./record.ts";
import { isTerminal, type Outcome } from "./names_light.ts";
import { updateJson } from "../fs/json.ts";

export interface FinalizeChange {
  outcome: Outcome;
  error?: string;
  result?: SubAgentResult | null;
  at: string;
}

export function finalizeRecord(
  project: Project,
  path: string,
  change: FinalizeChange,
): Promise<{ before: DispatchRecord; after: DispatchRecord }> {
  return updateJson(path, RecordFileSchema, recordReadOptions(path), (current) => {
    if (!current) throw recordNotFound(project, path);
    const before = current as DispatchRecord;
    const after: DispatchRecord = { ...before, updatedAt: change.at };
    if (!isTerminal(before.status)) {
      after.status = change.outcome;
      after.outcome = change.outcome;
      after.completedAt = change.at;
    }
    if (change.error !== undefined) after.error = change.error;
    if (change.result) after.result = change.result;
    if (!before.disposed) {
      after.disposed = true;
      after.disposedAt = change.at;
    }
    return { value: after, result: { before, after } };
  });
}
