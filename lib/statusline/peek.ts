/**
 * Display-only readers for `statusline render`. The status line runs after
 * every assistant message and must answer fast and never fail, so it reads
 * the state files with a plain JSON parse and a few shape checks instead of
 * the zod schemas (which every other command uses). A file that does not look
 * right is skipped here; the commands that act on it still report it.
 */
import { listBatchFiles } from "../batch/files.ts";
import { type MemberView, memberView, unreadableView } from "../batch/status_line.ts";
import type { Project } from "../workspace/project.ts";
import type { ContextReading, Presence } from "../presence/presence.ts";
import type { DispatchRecord } from "../record/record.ts";
import { isRecordFileName, isTerminal } from "../state/record.ts";
import { readBoundedText } from "../infra/fs/files.ts";

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
  return typeof binding?.sessionId === "string" ? binding.sessionId : undefined;
}

function asPresence(value: Record<string, unknown> | undefined): Presence | undefined {
  if (!value || typeof value.skill !== "string") return undefined;
  const text = (key: string) => (typeof value[key] === "string" ? value[key] as string : null);
  return { ...value, gate: text("gate"), role: text("role"), mode: text("mode") } as Presence;
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
  if (!value || typeof value.ratioPct !== "number" || typeof value.at !== "string") {
    return undefined;
  }
  return value as unknown as ContextReading;
}

/** Enough of a record for the batch line (its liveness and progress); the rest is not read. */
function looksLikeRecord(value: Record<string, unknown> | undefined): value is DispatchRecord {
  return !!value && typeof value.status === "string" && typeof value.role === "string" &&
    typeof value.createdAt === "string" && Array.isArray(value.heartbeats);
}

async function members(project: Project, sid: string, batchId: string, now: Date) {
  const batch = await peekJson(project.layout.batch(sid, batchId));
  // A member names a record file in the session folder; anything else (a path, a device) is skipped.
  const valid = (m: unknown): m is { record: string; role: string; n?: number } =>
    !!m && typeof (m as { record: unknown }).record === "string" &&
    isRecordFileName((m as { record: string }).record) &&
    typeof (m as { role: unknown }).role === "string";
  const listed = [
    ...(Array.isArray(batch?.members) ? batch.members : []).filter(valid)
      .map((m) => ({ ...m, pending: false })),
    ...(Array.isArray(batch?.pending) ? batch.pending : []).filter(valid)
      .map((m) => ({ ...m, pending: true })),
  ];
  const views = await Promise.all(listed.map(async (member): Promise<MemberView | undefined> => {
    const path = project.layout.dispatchRecord(sid, member.record);
    const record = await peekJson(path);
    const n = typeof member.n === "number" ? member.n : null;
    if (looksLikeRecord(record)) return memberView(path, record, now);
    // A reserved number whose record never appeared belongs to a dispatch that died: not a member.
    return member.pending ? undefined : unreadableView(path, member.role, n);
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
