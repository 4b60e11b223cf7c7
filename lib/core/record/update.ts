/**
 * The locked read-modify-write of one dispatch record, typed: every writer
 * of a record (heartbeat, artifact, finalize, watch, the detached supervisor)
 * goes through here, so none reads, casts or writes a record by hand.
 */
import { updateJson } from "../fs/json.ts";
import type { Project } from "../project/project.ts";
import {
  type DispatchRecord,
  RecordFileSchema,
  recordNotFound,
  recordReadOptions,
} from "./record.ts";

/** What a change decides: the record to write (none leaves the file untouched) and the answer. */
export interface RecordChange<R> {
  value?: DispatchRecord;
  result: R;
}

/** Runs `change` on the record under its lock; `record` is undefined when the file is gone. */
export function updateRecord<R>(
  path: string,
  change: (record: DispatchRecord | undefined) => RecordChange<R> | Promise<RecordChange<R>>,
): Promise<R> {
  return updateJson(path, RecordFileSchema, recordReadOptions(path), change);
}

/** Like updateRecord, for a record that must exist: a missing one is RECORD_NOT_FOUND. */
export function updateExistingRecord<R>(
  project: Project,
  path: string,
  change: (record: DispatchRecord) => RecordChange<R> | Promise<RecordChange<R>>,
): Promise<R> {
  return updateRecord(path, (record) => {
    if (!record) throw recordNotFound(project, path);
    return change(record);
  });
}
