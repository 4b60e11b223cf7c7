/**
 * Display-only readers for `statusline render`. The status line runs after
 * every assistant message and must answer fast and never fail, so it reads
 * the state files with a plain JSON parse and checks each against its
 * generated shape (lib/state/shapes.ts), never loading zod. A file the shape
 * doubts is skipped here; the commands that act on it still report it.
 */
import { listBatchFiles } from "../batch/files.ts";
import { type MemberView, memberView, unreadableView } from "../batch/status_line.ts";
import type { Project } from "../workspace/project.ts";
import type { ContextReading, Presence } from "../presence/presence.ts";
import type { DispatchRecord } from "../record/record.ts";
import { isTerminal } from "../state/record.ts";
import { readBoundedText } from "../infra/fs/files.ts";
import { fits } from "../infra/shape/shape.ts";
import {
  BATCH_SHAPE,
  CONTEXT_READING_SHAPE,
  PRESENCE_SHAPE,
  RECORD_SHAPE,
  SESSION_BINDING_SHAPE,
} from "../state/shapes.ts";
import type { Batch } from "../batch/batch.ts";

/**
 * The parsed file, or undefined when it is missing, not JSON, or refused (not
 * a regular file inside the project, or over the read bound): the status line
 * never opens a FIFO or follows a link out.
 */
export async function peekJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const text = await readBoundedText(path);
    if (text === undefined) return undefined;
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export async function peekBoundSession(project: Project): Promise<string | undefined> {
  const binding = await peekJson(project.layout.sessionBinding);
  return binding && fits(SESSION_BINDING_SHAPE, binding) ? binding.sessionId as string : undefined;
}

function asPresence(value: Record<string, unknown> | undefined): Presence | undefined {
  return fits(PRESENCE_SHAPE, value) ? value as unknown as Presence : undefined;
}

/** The caller's own presence when it has one, else the session's. */
export async function peekPresence(
  project: Project,
  sid: string,
  callerId: string | undefined,
): Promise<Presence | undefined> {
  if (callerId) {
    const own = asPresence(await peekJson(project.layout.presence(sid, callerId)));
    if (own) return own;
  }
  return asPresence(await peekJson(project.layout.presence(sid)));
}

export async function peekContext(
  project: Project,
  sid: string,
): Promise<ContextReading | undefined> {
  const value = await peekJson(project.layout.context(sid));
  return fits(CONTEXT_READING_SHAPE, value) ? value as unknown as ContextReading : undefined;
}

function isRecord(value: Record<string, unknown> | undefined): value is DispatchRecord {
  return fits(RECORD_SHAPE, value);
}

async function members(project: Project, sid: string, batchId: string, now: Date) {
  const file = await peekJson(project.layout.batch(sid, batchId));
  // The shape holds each member's record to a file name in the session folder (never a path).
  if (!fits(BATCH_SHAPE, file)) return [];
  const batch = file as unknown as Batch;
  const listed = [
    ...batch.members.map((m) => ({ ...m, pending: false })),
    ...(batch.pending ?? []).map((m) => ({ ...m, pending: true })),
  ];
  const views = await Promise.all(listed.map(async (member): Promise<MemberView | undefined> => {
    const path = project.layout.dispatchRecord(sid, member.record);
    const record = await peekJson(path);
    if (isRecord(record)) return memberView(path, record, now);
    // A reserved number whose record never appeared belongs to a dispatch that died: not a member.
    return member.pending ? undefined : unreadableView(path, member.role, member.n);
  }));
  return views.filter((v): v is MemberView => v !== undefined);
}

/** The newest batch (of the last three) with a member still open. */
export async function peekOpenBatch(
  project: Project,
  sid: string,
  now: Date,
): Promise<MemberView[] | undefined> {
  const files = await listBatchFiles(project, sid).catch(() => []);
  for (const file of files.slice(0, 3)) {
    const views = await members(project, sid, file.batchId, now);
    if (views.some((m) => m.status !== "unreadable" && !isTerminal(m.status))) return views;
  }
  return undefined;
}
