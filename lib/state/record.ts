/**
 * The zod schemas of the dispatch record, and the migration of older
 * versions. Loaded only when a record's shape (shapes.ts) cannot vouch for
 * it: an older version, a broken file, a value to word an error about.
 * record.ts holds the functions every command uses.
 */
import { z } from "../infra/zod.ts";
import {
  ARTIFACT_STATES,
  OUTCOMES,
  RECORD_STATUSES,
  RECORD_VERSION,
  STAGES,
} from "../record/names.ts";
import { SliceWorktreeSchema } from "./slice_worktree.ts";

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
  /** An isolated slice's git worktree and merge state (lib/record/worktree.ts). */
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
