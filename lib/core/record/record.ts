/**
 * The dispatch record: one JSON file per dispatched sub-agent under
 * `.peaks/_sub_agents/<sid>/`. Dispatch creates it; heartbeats, artefact
 * registration and finalize update it under its lock; list, status, watch,
 * swarm converge, doctor and the status line read it. The schema is
 * versioned: older records are migrated on read and written back in the
 * current version by the next locked update. File names, roles, statuses and
 * stages live in names_light.ts.
 */
import { z } from "../zod.ts";
import type { Project } from "../project/project.ts";
import {
  describeIssues,
  readJsonFile,
  type ReadOptions,
  unreadable,
  updateJson,
} from "../fs/json.ts";
import { PeaksError } from "../errors.ts";
import { listDir } from "../fs/files.ts";
import {
  ARTIFACT_STATES,
  isRecordFileName,
  OUTCOMES,
  quarantineCommand,
  RECORD_STATUSES,
  RECORD_VERSION,
  STAGES,
} from "./names_light.ts";
import { peaksLine } from "../shell.ts";
import { isValidId } from "../ids.ts";
import { SliceWorktreeSchema } from "./worktree.ts";

const iso = z.string().min(1);

export const HeartbeatSchema = z.object({
  at: iso,
  status: z.enum(RECORD_STATUSES),
  progress: z.number().int().min(0).max(100),
  note: z.string().nullable(),
  stage: z.enum(STAGES).nullable(),
});
export type Heartbeat = z.infer<typeof HeartbeatSchema>;

export const ArtifactMetaSchema = z.object({
  /** Project-relative, forward slashes. */
  path: z.string().min(1),
  size: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  status: z.enum(ARTIFACT_STATES),
  summary: z.string().nullable(),
  writtenAt: iso,
  rid: z.string(),
  role: z.string(),
  idx: z.number().int().min(1),
});
export type ArtifactMeta = z.infer<typeof ArtifactMetaSchema>;

export const ToolCallSchema = z.looseObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** The sub-agent's final message, as passed to `finalize --result-json`. */
export const SubAgentResultSchema = z.looseObject({
  role: z.string().min(1),
  rid: z.string().min(1),
  status: z.enum(["ok", "blocked", "skipped"]),
  /** QA's verdict, which the verdict-issued transition takes as it is. */
  verdict: z.enum(["pass", "return-to-rd", "blocked"]).optional(),
  artefacts: z.array(z.string().min(1)).default([]),
  warnings: z.array(z.unknown()).default([]),
  blockedReason: z.string().nullable().optional(),
  reason: z.string().nullable().optional(),
  diffSummary: z.unknown().optional(),
});
export type SubAgentResult = z.infer<typeof SubAgentResultSchema>;

/**
 * Loose on purpose: fields added later within the same version (detached
 * supervisor data, DAG bookkeeping) survive a read-modify-write by an older
 * command instead of being stripped.
 */
export const DispatchRecordSchema = z.looseObject({
  version: z.literal(RECORD_VERSION, {
    error:
      `unsupported record version (this peaks reads version ${RECORD_VERSION} and migrates older ones; upgrade peaks)`,
  }),
  createdAt: iso,
  updatedAt: iso,
  sessionId: z.string().min(1),
  requestId: z.string().min(1),
  /** `generated` when dispatch had no --request-id and derived one from the batch. */
  requestIdSource: z.enum(["flag", "generated"]),
  role: z.string().min(1),
  batchId: z.string().min(1),
  dispatchedInBatch: z.number().int().min(1),
  ide: z.string(),
  mode: z.enum(["in-process", "detached"]),
  vendor: z.string().nullable(),
  brief: z.enum(["inline", "pointer"]),
  heartbeatIntervalSec: z.number().int().min(1),
  prompt: z.string(),
  promptSize: z.number().int().min(0),
  originalPromptSize: z.number().int().min(0),
  toolCall: ToolCallSchema.nullable(),
  status: z.enum(RECORD_STATUSES),
  outcome: z.enum(OUTCOMES).nullable(),
  stage: z.enum(STAGES).nullable(),
  heartbeats: z.array(HeartbeatSchema),
  lastBeatAt: iso.nullable(),
  truncated: z.boolean(),
  revivedAt: iso.nullable(),
  artifactMetas: z.array(ArtifactMetaSchema),
  declaredArtifacts: z.array(z.string()),
  gitHead: z.string().nullable(),
  gitBranch: z.string().nullable(),
  headroomResult: z.unknown().nullable(),
  forcedAt: iso.nullable(),
  completedAt: iso.nullable(),
  error: z.string().nullable(),
  result: SubAgentResultSchema.nullable(),
  disposed: z.boolean(),
  disposedAt: iso.nullable(),
  graphNodeId: z.string().nullable(),
  workflowId: z.string().nullable(),
  /** When the sub-agent first fetched its brief (`sub-agent brief`): it started. */
  briefedAt: iso.optional(),
  /** An isolated slice's git worktree and merge state (lib/core/record/worktree.ts). */
  worktree: SliceWorktreeSchema.optional(),
});
export type DispatchRecord = z.infer<typeof DispatchRecordSchema>;

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/**
 * Version 0 is the unversioned record of the earlier implementation: role,
 * request and batch ids, prompt, tool call, status, heartbeats. Everything
 * else gets the value a fresh record would have.
 */
function fromVersion0(raw: Record<string, unknown>): Record<string, unknown> {
  const createdAt = typeof raw.createdAt === "string"
    ? raw.createdAt
    : typeof raw.dispatchedAt === "string"
    ? raw.dispatchedAt
    : undefined;
  const prompt = typeof raw.prompt === "string" ? raw.prompt : "";
  const status = typeof raw.status === "string" ? raw.status : "queued";
  const terminal = (OUTCOMES as readonly string[]).includes(status);
  return {
    requestIdSource: "flag",
    mode: "in-process",
    vendor: null,
    brief: "inline",
    heartbeatIntervalSec: 30,
    promptSize: utf8Length(prompt),
    originalPromptSize: utf8Length(prompt),
    toolCall: null,
    stage: null,
    heartbeats: [],
    lastBeatAt: null,
    truncated: false,
    revivedAt: null,
    artifactMetas: [],
    declaredArtifacts: [],
    gitHead: null,
    gitBranch: null,
    headroomResult: null,
    forcedAt: null,
    completedAt: null,
    error: null,
    result: null,
    disposed: false,
    disposedAt: null,
    graphNodeId: null,
    workflowId: null,
    ...raw,
    requestId: raw.requestId ?? raw.rid,
    prompt,
    status,
    outcome: raw.outcome ?? (terminal ? status : null),
    createdAt,
    updatedAt: raw.updatedAt ?? createdAt,
    version: RECORD_VERSION,
  };
}

/** Brings an older record up to the current version; other values pass through untouched. */
export function migrateRecord(raw: unknown): unknown {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const object = raw as Record<string, unknown>;
  if (object.version === undefined || object.version === 0) return fromVersion0(object);
  return raw;
}

/** What record files are read and written through: migration, then the current schema. */
export const RecordFileSchema = z.preprocess(migrateRecord, DispatchRecordSchema);

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
export function parseRecord(path: string, raw: unknown): DispatchRecord {
  const parsed = RecordFileSchema.safeParse(raw);
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
  return raw === undefined ? undefined : parseRecord(path, raw);
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
  listing.records.sort((a, b) => b.record.createdAt.localeCompare(a.record.createdAt));
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
