/**
 * Sub-agent fixtures: a workspace with a session, and dispatch records and
 * batch files written straight to disk with chosen timestamps, so liveness
 * and status-line tests never sleep.
 */
import { assertEquals } from "@std/assert";
import { runPeaks } from "./cli.ts";
import { join } from "../../lib/infra/std.ts";
import type { DispatchRecord } from "../../lib/record/record.ts";
import { RECORD_VERSION, type RecordStatus } from "../../lib/state/record.ts";
import { recordFileName } from "../../lib/record/names.ts";

/** `workspace init` in `cwd`; returns the session id. */
export async function initWorkspace(cwd: string, env?: Record<string, string>): Promise<string> {
  const result = await runPeaks(["workspace", "init", "--json"], { cwd, env });
  assertEquals(result.code, 0, result.stderr);
  return result.json.data.sessionId;
}

/** An ISO time `ms` milliseconds before the real current time. */
export function ago(ms: number): string {
  return new Date(Date.now() - ms).toISOString();
}

export interface RecordSpec {
  sessionId: string;
  role: string;
  batchId: string;
  n: number;
  requestId?: string;
  status?: RecordStatus;
  createdAt?: string;
  /** Heartbeats as [time, progress]; the last one sets lastBeatAt. */
  beats?: Array<[string, number]>;
  overrides?: Partial<DispatchRecord>;
}

export function makeRecord(spec: RecordSpec): DispatchRecord {
  const createdAt = spec.createdAt ?? ago(5_000);
  const status = spec.status ?? (spec.beats?.length ? "running" : "queued");
  const beats = (spec.beats ?? []).map(([at, progress]) => ({
    at,
    status: status === "done" || status === "failed" ? status : "running" as RecordStatus,
    progress,
    note: null,
    stage: null,
  }));
  const terminal = ["done", "failed", "cancelled", "timeout"].includes(status);
  return {
    version: RECORD_VERSION,
    createdAt,
    updatedAt: beats.at(-1)?.at ?? createdAt,
    sessionId: spec.sessionId,
    requestId: spec.requestId ?? "001-login",
    requestIdSource: "flag",
    role: spec.role,
    batchId: spec.batchId,
    dispatchedInBatch: spec.n,
    ide: "claude-code",
    mode: "in-process",
    vendor: null,
    brief: "inline",
    heartbeatIntervalSec: 30,
    prompt: "do the work",
    promptSize: 11,
    originalPromptSize: 11,
    toolCall: null,
    status,
    outcome: terminal ? status as DispatchRecord["outcome"] : null,
    stage: null,
    heartbeats: beats,
    lastBeatAt: beats.at(-1)?.at ?? null,
    truncated: false,
    revivedAt: null,
    artifactMetas: [],
    declaredArtifacts: [],
    gitHead: null,
    gitBranch: null,
    headroomResult: null,
    forcedAt: null,
    completedAt: terminal ? beats.at(-1)?.at ?? createdAt : null,
    error: null,
    result: null,
    disposed: false,
    disposedAt: null,
    graphNodeId: null,
    workflowId: null,
    ...spec.overrides,
  };
}

export function agentsDir(root: string, sid: string): string {
  return join(root, ".peaks", "_sub_agents", sid);
}

/** Writes records and their batch file; returns the records' absolute paths in order. */
export async function writeBatchOnDisk(
  root: string,
  sid: string,
  batchId: string,
  records: DispatchRecord[],
): Promise<string[]> {
  const dir = agentsDir(root, sid);
  await Deno.mkdir(dir, { recursive: true });
  const members = [];
  const paths: string[] = [];
  for (const record of records) {
    const name = recordFileName(record.requestId, record.role, new Date(record.createdAt));
    const path = join(dir, name);
    await Deno.writeTextFile(path, JSON.stringify(record, null, 2));
    paths.push(path);
    members.push({
      n: record.dispatchedInBatch,
      role: record.role,
      requestId: record.requestId,
      record: name,
      addedAt: record.createdAt,
    });
  }
  const at = records[0]?.createdAt ?? new Date().toISOString();
  await Deno.writeTextFile(
    join(dir, `batch-${batchId}.json`),
    JSON.stringify({
      version: 1,
      batchId,
      sessionId: sid,
      createdAt: at,
      updatedAt: at,
      count: records.length,
      members,
    }),
  );
  return paths;
}

export async function readJson(path: string): Promise<DispatchRecord> {
  return JSON.parse(await Deno.readTextFile(path));
}

/**
 * The project-relative path of the record a dispatch envelope names by its short id
 * (`data.record`, `data.records[i]`): the file `dispatch-…-<id>.json` in a session folder.
 */
export function recordPathOf(root: string, id: string): string {
  const base = join(root, ".peaks", "_sub_agents");
  for (const session of Deno.readDirSync(base)) {
    if (!session.isDirectory) continue;
    for (const entry of Deno.readDirSync(join(base, session.name))) {
      if (entry.isFile && entry.name.endsWith(`-${id}.json`)) {
        return `.peaks/_sub_agents/${session.name}/${entry.name}`;
      }
    }
  }
  throw new Error(`no dispatch record with id ${id} under ${base}`);
}

/** The words of a running heartbeat at `progress` percent for `record`. */
export function heartbeatArgs(record: string, progress: string): string[] {
  return [
    "sub-agent",
    "heartbeat",
    "--record",
    record,
    "--status",
    "running",
    "--progress",
    progress,
  ];
}
