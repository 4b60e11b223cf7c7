/**
 * The dispatch record, one file per dispatched sub-agent
 * (`.peaks/_runtime/<sid>/agents/dispatch-*.json`): its file-name pattern,
 * the words it uses (statuses, stages, worktree states), the version and the
 * migration of older ones, and the zod schema
 * that decides a record. The schema is built only when asked for, so a
 * command that only writes records loads no zod. How records are named:
 * lib/record/names.ts.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";

export const RECORD_VERSION = 1;

export const RECORD_STATUSES = [
  "queued",
  "running",
  "finalizing",
  "done",
  "failed",
  "cancelled",
  "timeout",
  "stale",
  "never-started",
] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

export const OUTCOMES = ["done", "failed", "cancelled", "timeout"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const STAGES = [
  "intake",
  "planning",
  "gathering",
  "analyzing",
  "writing",
  "testing",
  "reviewing",
  "finalizing",
] as const;

export const ARTIFACT_STATES = ["created", "partial", "failed"] as const;

/** The states of an isolated slice's worktree (worktree.ts has the lifecycle). */
export const WORKTREE_STATES = [
  "creating",
  "ready",
  "captured",
  "merging",
  "merged",
  "conflict",
  "discarded",
  "redo",
] as const;
export type WorktreeState = (typeof WORKTREE_STATES)[number];

/** States after which the slice's worktree has no further use (it is removed). */
export const SETTLED_STATES: readonly WorktreeState[] = ["merged", "discarded", "redo"];

/** Heartbeats kept per record; older ones are dropped and `truncated` set. */
export const MAX_HEARTBEATS = 100;

export function isTerminal(status: RecordStatus): boolean {
  return (OUTCOMES as readonly string[]).includes(status);
}

/** A record's file name: `dispatch-<id>.json`, with no `..` anywhere. */
export const RECORD_FILE_PATTERN = /^dispatch-(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,240}\.json$/;

export function isRecordFileName(name: string): boolean {
  return RECORD_FILE_PATTERN.test(name);
}

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

/** An isolated slice's worktree, as a record's `worktree` field holds it (lib/record/worktree.ts). */
function worktreeSchemas(z: Zod) {
  const iso = z.string().min(1);
  const SliceConflictSchema = z.looseObject({
    /** Repository-relative files the patch could not be applied to. */
    files: z.array(z.string()),
    /** The slices already merged that changed those files. */
    with: z.array(z.looseObject({ node: z.string().nullable(), recordPath: z.string() })),
    /** Some of the files changed in the main tree itself since the slice started. */
    main: z.boolean(),
    message: z.string(),
  });

  const SliceWorktreeSchema = z.looseObject({
    /** peaks: peaks made it; host: the host's own sub-agent isolation (Claude Code) made it. */
    kind: z.enum(["peaks", "host"]),
    state: z.enum(WORKTREE_STATES),
    node: z.string().nullable(),
    /** [level, position in level]: the DAG order slices are merged in. */
    order: z.tuple([z.number().int(), z.number().int()]).nullable(),
    owns: z.array(z.string()),
    /** Absolute path of the checkout (null for a host worktree until its path is known). */
    path: z.string().nullable(),
    /** Absolute path of the project's folder inside the checkout. */
    projectDir: z.string().nullable(),
    branch: z.string().nullable(),
    /** The commit the slice started from (a snapshot of the main tree, uncommitted changes included). */
    base: z.string().nullable(),
    /** The checkout's HEAD and the tree of its files when the change was captured. */
    head: z.string().nullable(),
    tree: z.string().nullable(),
    /** Project-relative path of the saved patch. */
    patch: z.string().nullable(),
    /** Repository-relative files the patch changes. */
    files: z.array(z.string()),
    conflict: SliceConflictSchema.nullable(),
    note: z.string().nullable(),
    removedAt: iso.nullable(),
    updatedAt: iso,
  });
  return { SliceConflictSchema, SliceWorktreeSchema };
}

/** The parts of a record: heartbeats, artefacts, the tool call, the sub-agent's result. */
function partSchemas(z: Zod) {
  const iso = z.string().min(1);
  const HeartbeatSchema = z.object({
    at: iso,
    status: z.enum(RECORD_STATUSES),
    progress: z.number().int().min(0).max(100),
    note: z.string().nullable(),
    stage: z.enum(STAGES).nullable(),
  });

  const ArtifactMetaSchema = z.object({
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

  const ToolCallSchema = z.looseObject({
    name: z.string().min(1),
    args: z.record(z.string(), z.unknown()),
  });

  /** The sub-agent's final message, as passed to `finalize --result-json`. */
  const SubAgentResultSchema = z.looseObject({
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
  return { HeartbeatSchema, ArtifactMetaSchema, ToolCallSchema, SubAgentResultSchema };
}

/**
 * The record's zod schemas, built on first use (`loadSchemas(recordSchemas)`
 * or `recordSchemas(z)` where zod is loaded anyway). A hot command checks a
 * record by its generated shape (shapes.ts) and builds these only for what
 * the shape doubts: an older version, a broken file, a value to word an error about.
 */
export const recordSchemas = schemas((z: Zod) => {
  const iso = z.string().min(1);
  const { SliceConflictSchema, SliceWorktreeSchema } = worktreeSchemas(z);
  const { HeartbeatSchema, ArtifactMetaSchema, ToolCallSchema, SubAgentResultSchema } = partSchemas(
    z,
  );
  /**
   * Loose on purpose: fields added later within the same version (detached
   * supervisor data, DAG bookkeeping) survive a read-modify-write by an older
   * command instead of being stripped.
   */
  const DispatchRecordSchema = z.looseObject({
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
    /** An isolated slice's git worktree and merge state (lib/record/worktree.ts). */
    worktree: SliceWorktreeSchema.optional(),
  });
  /** What record files are read and written through: migration, then the current schema. */
  const RecordFileSchema = z.preprocess(migrateRecord, DispatchRecordSchema);
  return {
    HeartbeatSchema,
    ArtifactMetaSchema,
    ToolCallSchema,
    SubAgentResultSchema,
    DispatchRecordSchema,
    SliceConflictSchema,
    SliceWorktreeSchema,
    RecordFileSchema,
  };
});
type RecordSchemas = ReturnType<typeof recordSchemas>;
export type Heartbeat = z.infer<RecordSchemas["HeartbeatSchema"]>;
export type ArtifactMeta = z.infer<RecordSchemas["ArtifactMetaSchema"]>;
export type ToolCall = z.infer<RecordSchemas["ToolCallSchema"]>;
export type SubAgentResult = z.infer<RecordSchemas["SubAgentResultSchema"]>;
export type DispatchRecord = z.infer<RecordSchemas["DispatchRecordSchema"]>;
export type SliceConflict = z.infer<RecordSchemas["SliceConflictSchema"]>;
export type SliceWorktree = z.infer<RecordSchemas["SliceWorktreeSchema"]>;
