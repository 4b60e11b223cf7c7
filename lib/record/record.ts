/**
 * The dispatch record: one JSON file per dispatched sub-agent under
 * `.peaks/_sub_agents/<sid>/`. Dispatch creates it; heartbeats, artefact
 * registration and finalize update it under its lock; list, status, watch,
 * swarm converge, doctor and the status line read it. The schema is
 * versioned: older records are migrated on read and written back in the
 * current version by the next locked update. File names, roles, statuses and
 * stages live in lib/state/record.ts.
 */
import type { Project } from "../workspace/project.ts";
import {
  describeIssues,
  readJsonFile,
  type ReadOptions,
  unreadable,
  updateJson,
} from "../infra/fs/json.ts";
import { PeaksError } from "../infra/errors.ts";
import { listDir } from "../infra/fs/files.ts";
import { isRecordFileName } from "../state/record.ts";
import { quarantineCommand } from "./names.ts";
import { peaksLine } from "../infra/shell.ts";
import { compareText, isValidId } from "../infra/ids.ts";
import { checkState, loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { RECORD_SHAPE } from "../state/shapes.ts";
import type { DispatchRecord } from "../state/record.ts";

export type {
  ArtifactMeta,
  DispatchRecord,
  Heartbeat,
  SubAgentResult,
  ToolCall,
} from "../state/record.ts";

/**
 * Record files are checked by their shape first; a record it doubts (an older version to migrate,
 * a broken file) loads the zod schema, which migrates it or words the error.
 */
export const RecordFile = stateSchema<DispatchRecord>(
  RECORD_SHAPE,
  () =>
    import("../state/record.ts").then((m) => loadSchemas(m.recordSchemas)).then((s) =>
      s.RecordFileSchema
    ),
);

/** Records hold the prompt (at most 32 MiB); past this bound a record is unreadable, not loaded. */
export const RECORD_READ_MAX_BYTES = 64 * 1024 * 1024;

export function recordReadOptions(path: string): ReadOptions {
  return {
    what: "dispatch record",
    repair: [quarantineCommand(path)],
    maxBytes: RECORD_READ_MAX_BYTES,
  };
}

/** Parses a record's JSON (migrating older versions); broken ones are RECORD_UNREADABLE. */
export async function parseRecord(path: string, raw: unknown): Promise<DispatchRecord> {
  const parsed = await checkState(RecordFile, raw);
  if (!parsed.success) {
    throw unreadable(
      path,
      recordReadOptions(path),
      `does not match its schema: ${describeIssues(parsed.error)}`,
    );
  }
  return parsed.data;
}

/** Reads one record; undefined when the file does not exist. */
export async function readRecord(path: string): Promise<DispatchRecord | undefined> {
  const raw = await readJsonFile(path, recordReadOptions(path));
  return raw === undefined ? undefined : await parseRecord(path, raw);
}

export function recordNotFound(project: Project, path: string): PeaksError {
  return new PeaksError(
    "RECORD_NOT_FOUND",
    `No dispatch record at ${path}.`,
    {
      data: { path },
      nextActions: [peaksLine(project.root, ["sub-agent", "list"])],
    },
  );
}

export interface RecordEntry {
  path: string;
  record: DispatchRecord;
}

export interface UnreadableEntry {
  path: string;
  error: PeaksError;
}

export interface RecordListing {
  records: RecordEntry[];
  unreadable: UnreadableEntry[];
}

/** Sessions that have a records folder, sorted (`_archive` and other non-session folders excluded). */
export async function recordSessions(project: Project): Promise<string[]> {
  const entries = await listDir(project.layout.subAgents);
  return entries.filter((e) => e.isDirectory && isValidId(e.name)).map((e) => e.name).sort();
}

/** File names of the records in a session's folder (none when the folder is absent). */
export async function recordFileNames(project: Project, sid: string): Promise<string[]> {
  const entries = await listDir(project.layout.agentsDir(sid));
  return entries.filter((e) => e.isFile && isRecordFileName(e.name)).map((e) => e.name).sort();
}

/** Reads the given record files; a broken one is listed as unreadable and never blocks the rest. */
export async function readRecords(paths: string[]): Promise<RecordListing> {
  const listing: RecordListing = { records: [], unreadable: [] };
  type Outcome = { path: string; record?: DispatchRecord; error?: PeaksError };
  const results = await Promise.all(paths.map(async (path): Promise<Outcome> => {
    try {
      return { path, record: await readRecord(path) };
    } catch (error) {
      if (error instanceof PeaksError) return { path, error };
      throw error;
    }
  }));
  for (const { path, record, error } of results) {
    if (error) listing.unreadable.push({ path, error });
    else if (record) listing.records.push({ path, record });
  }
  return listing;
}

/** Every record of a session, newest first. */
export async function listRecords(project: Project, sid: string): Promise<RecordListing> {
  const names = await recordFileNames(project, sid);
  const listing = await readRecords(names.map((n) => project.layout.dispatchRecord(sid, n)));
  listing.records.sort((a, b) => compareText(b.record.createdAt, a.record.createdAt));
  return listing;
}

/** What a change decides: the record to write (none leaves the file untouched) and the answer. */
export interface RecordChange<R> {
  value?: DispatchRecord;
  result: R;
}

/**
 * The locked read-modify-write of one record, typed; every writer of a record goes through it,
 * so none casts or writes one by hand. `record` is undefined when the file is gone.
 */
export function updateRecord<R>(
  path: string,
  change: (record: DispatchRecord | undefined) => RecordChange<R> | Promise<RecordChange<R>>,
  options: { pure?: boolean } = {},
): Promise<R> {
  return updateJson(path, RecordFile, { ...recordReadOptions(path), ...options }, change);
}

/**
 * Like updateRecord, for a record that must exist: a missing one is RECORD_NOT_FOUND.
 * `pure`: the change only computes the next record (see UpdateOptions.pure).
 */
export function updateExistingRecord<R>(
  project: Project,
  path: string,
  change: (record: DispatchRecord) => RecordChange<R> | Promise<RecordChange<R>>,
  options: { pure?: boolean } = {},
): Promise<R> {
  return updateRecord(path, (record) => {
    if (!record) throw recordNotFound(project, path);
    return change(record);
  }, options);
}
