/**
 * What the lifecycle hooks do to dispatch records. A record learns of its sub-agent from the
 * tool call that starts it (the pointer brief names the record; an inline prompt is matched
 * against the session's records), keeps the host's id of it in `hostAgent` ({host, id,
 * startedAt, endedAt}: a field the record's loose schema keeps), and is closed when the host
 * reports the sub-agent ended — unless the sub-agent or the orchestrator closed it first.
 */
import type { Project } from "../workspace/project.ts";
import type { DispatchRecord, SubAgentResult } from "../record/record.ts";
import { listRecords, type RecordEntry, updateRecord } from "../record/record.ts";
import { applyBeat } from "../record/heartbeat.ts";
import { endRecord } from "../record/terminal.ts";
import { isRecordFileName, isTerminal } from "../state/record.ts";
import { isRecordId } from "../record/names.ts";
import { promptOf } from "../dispatch/tool_call.ts";
import { isoTime } from "../infra/ids.ts";
import { isFile, listDir } from "../infra/fs/files.ts";
import { basename, join } from "../infra/std.ts";
import type { HookEvent } from "./event.ts";
import { objectOf, textOf } from "./event.ts";

export interface HostAgent {
  host: string;
  id: string | null;
  startedAt: string;
  endedAt: string | null;
}

export const ENDED_WITHOUT_REPORT = "ended-without-report";

export function hostAgentOf(record: DispatchRecord): HostAgent | undefined {
  const value = objectOf((record as Record<string, unknown>).hostAgent);
  const host = textOf(value.host);
  const startedAt = textOf(value.startedAt);
  if (!host || !startedAt) return undefined;
  return { host, id: textOf(value.id) ?? null, startedAt, endedAt: textOf(value.endedAt) ?? null };
}

function withHostAgent(record: DispatchRecord, agent: HostAgent): DispatchRecord {
  return { ...record, hostAgent: agent } as DispatchRecord;
}

/** The `--record <id|file|path>` of a pointer brief (`peaks sub-agent brief --record <…>`). */
const POINTER = /--record[\s=]+['"]?([^\s'"`]+)/;

async function pointedRecord(
  project: Project,
  sid: string,
  prompt: string,
): Promise<string | undefined> {
  const token = POINTER.exec(prompt)?.[1];
  if (!token) return undefined;
  const name = basename(token);
  const dir = project.layout.agentsDir(sid);
  let file: string | undefined;
  if (isRecordFileName(name)) file = name;
  else if (isRecordId(name)) {
    file = (await listDir(dir)).find((e) =>
      e.isFile && isRecordFileName(e.name) && e.name.endsWith(`-${name}.json`)
    )?.name;
  }
  if (!file) return undefined;
  const path = join(dir, file);
  return await isFile(path, { lstat: true }) ? path : undefined;
}

/** The record a sub-agent's prompt comes from: the pointer brief's record, or the same prompt. */
export async function recordForPrompt(
  project: Project,
  sid: string,
  prompt: string,
): Promise<string | undefined> {
  const pointed = await pointedRecord(project, sid, prompt);
  if (pointed) return pointed;
  const { records } = await listRecords(project, sid);
  const same = records.find(({ record }) =>
    !isTerminal(record.status) &&
    (record.prompt === prompt || (record.toolCall && promptOf(record.toolCall) === prompt))
  );
  return same?.path;
}

/** The open record whose sub-agent the host knows by this id. */
export async function recordForAgent(
  project: Project,
  sid: string,
  host: string,
  agentId: string,
): Promise<RecordEntry | undefined> {
  const { records } = await listRecords(project, sid);
  return records.find(({ record }) => {
    const agent = hostAgentOf(record);
    return agent?.host === host && agent.id === agentId;
  });
}

/** The oldest open record the host started whose sub-agent has no id yet. */
export async function recordAwaitingId(
  project: Project,
  sid: string,
  host: string,
): Promise<RecordEntry | undefined> {
  const { records } = await listRecords(project, sid);
  return records.filter(({ record }) => {
    const agent = hostAgentOf(record);
    return !isTerminal(record.status) && agent?.host === host && agent.id === null;
  }).at(-1);
}

/** Marks the record started by the host (a running beat) and keeps the host's id when known. */
export function markStarted(path: string, event: HookEvent, now: Date): Promise<string> {
  return updateRecord(path, (record) => {
    if (!record) return { result: "missing" };
    if (isTerminal(record.status)) return { result: "already-ended" };
    const known = hostAgentOf(record);
    const at = isoTime(now);
    const agent: HostAgent = known && known.host === event.host
      ? { ...known, id: known.id ?? event.agentId ?? null }
      : { host: event.host, id: event.agentId ?? null, startedAt: at, endedAt: null };
    const started = record.heartbeats.length > 0 || record.lastBeatAt !== null;
    const next = started ? record : applyBeat(record, {
      status: "running",
      progress: 0,
      note: `started by ${event.host}`,
      stage: null,
    }, now).next;
    return { value: withHostAgent(next, agent), result: known ? "id-attached" : "started" };
  });
}

/** The return contract found in a sub-agent's last message, if it holds one. */
export function returnOf(text: string | undefined): SubAgentResult | undefined {
  if (!text) return undefined;
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    const value = objectOf(JSON.parse(text.slice(start, end + 1)));
    const role = textOf(value.role);
    const rid = textOf(value.rid);
    const status = value.status;
    if (!role || !rid || (status !== "ok" && status !== "blocked" && status !== "skipped")) {
      return undefined;
    }
    return {
      ...value,
      role,
      rid,
      status,
      artefacts: Array.isArray(value.artefacts) ? value.artefacts.filter(textOf) as string[] : [],
      warnings: Array.isArray(value.warnings) ? value.warnings : [],
    } as SubAgentResult;
  } catch {
    return undefined;
  }
}

/**
 * Closes the record when its sub-agent ended: a record already ended is left as it is (no
 * double finalize); with a return JSON it ends done (failed when blocked); without one it
 * ends failed with ended-without-report; a failure the host reports ends it failed.
 */
export function markEnded(path: string, event: HookEvent, now: Date): Promise<string> {
  return updateRecord(path, (record) => {
    if (!record) return { result: "missing" };
    if (isTerminal(record.status)) return { result: "already-ended" };
    const at = isoTime(now);
    const known = hostAgentOf(record);
    const agent: HostAgent = {
      host: event.host,
      id: known?.id ?? event.agentId ?? null,
      startedAt: known?.startedAt ?? at,
      endedAt: at,
    };
    const result = event.kind === "agent-failed" ? undefined : returnOf(event.response);
    const outcome = result && result.status !== "blocked" ? "done" : "failed";
    const next: DispatchRecord = withHostAgent(endRecord(record, outcome, at), agent);
    if (result) next.result = result;
    if (!result) {
      next.error = event.kind === "agent-failed"
        ? `host-reported-failure: ${event.error ?? "error"}`
        : ENDED_WITHOUT_REPORT;
    } else if (result.status === "blocked") {
      next.error = `blocked: ${result.blockedReason ?? result.reason ?? "no reason given"}`;
    }
    return { value: next, result: outcome };
  });
}
