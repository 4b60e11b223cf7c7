/**
 * The one-line batch status (`[peaks-code] swarm 2/3 running | rd 45% (12s ago) | …`)
 * and the member views it is built from: pure functions over records, no
 * file reading and no zod, so `statusline render` stays fast.
 */
import type { DispatchRecord } from "../record/record.ts";
import { isTerminal, type RecordStatus } from "../state/record.ts";
import { safeField } from "../infra/terminal_text.ts";
import {
  ageSinceDispatchSec,
  effectiveStatus,
  lastBeatAgeSec,
  lastProgress,
  type Liveness,
  liveness,
} from "../record/liveness.ts";

export const STATUS_LINE_MAX = 120;

export interface MemberView {
  n: number | null;
  role: string;
  recordPath: string;
  status: RecordStatus | "unreadable";
  liveness: Liveness | "unreadable";
  progress: number;
  /** Seconds since the last heartbeat, null before the first one. */
  beatAgeSec: number | null;
  sinceDispatchSec: number;
  record: DispatchRecord | null;
}

export function memberView(path: string, record: DispatchRecord, now: Date): MemberView {
  return {
    n: record.dispatchedInBatch,
    role: record.role,
    recordPath: path,
    status: effectiveStatus(record, now),
    liveness: liveness(record, now),
    progress: lastProgress(record),
    beatAgeSec: lastBeatAgeSec(record, now),
    sinceDispatchSec: ageSinceDispatchSec(record, now),
    record,
  };
}

export function unreadableView(path: string, role: string, n: number | null): MemberView {
  return {
    n,
    role,
    recordPath: path,
    status: "unreadable",
    liveness: "unreadable",
    progress: 0,
    beatAgeSec: null,
    sinceDispatchSec: 0,
    record: null,
  };
}

const PROBLEMS = new Set([
  "stale",
  "never-started",
  "failed",
  "cancelled",
  "timeout",
  "unreadable",
]);

function isOpen(view: MemberView): boolean {
  return view.status !== "unreadable" && !isTerminal(view.status);
}

export interface BatchCounts {
  total: number;
  open: number;
  done: number;
  failed: number;
  stale: number;
}

export function batchCounts(members: MemberView[]): BatchCounts {
  return {
    total: members.length,
    open: members.filter(isOpen).length,
    done: members.filter((m) => m.status === "done").length,
    failed: members.filter((m) => ["failed", "cancelled", "timeout"].includes(m.status)).length,
    stale: members.filter((m) => m.status === "stale" || m.status === "never-started").length,
  };
}

/**
 * `swarm 2/3 running`, `swarm 1/3 running, 1 queued`, `swarm 3/3 done`, `swarm 2/3 done, 1 failed`; a batch
 * none of whose open members has sent a beat yet is `not started`, one whose
 * open members beat and then went quiet is `stalled`, and a
 * single dispatch is `sub-agent running`, `sub-agent done`, `sub-agent failed`.
 */
export function batchHeader(members: MemberView[]): string {
  const counts = batchCounts(members);
  const running = members.some((m) => m.status === "running" || m.status === "finalizing");
  // An open member that has sent a beat started: gone quiet since, it stalled.
  const beat = members.some((m) => isOpen(m) && m.beatAgeSec !== null);
  const state = counts.open > 0 ? (running ? "running" : beat ? "stalled" : "not started") : "";
  if (counts.total === 1) {
    return `sub-agent ${state || (counts.done ? "done" : members[0].status)}`;
  }
  // Queued members (waiting for a free slot) are not running: `swarm 1/2 running, 1 queued`.
  const queued = members.filter((m) => m.status === "queued").length;
  if (running && queued) {
    return `swarm ${counts.open - queued}/${counts.total} running, ${queued} queued`;
  }
  if (counts.open > 0) return `swarm ${counts.open}/${counts.total} ${state}`;
  const bad = counts.total - counts.done;
  return bad === 0
    ? `swarm ${counts.total}/${counts.total} done`
    : `swarm ${counts.done}/${counts.total} done, ${bad} failed`;
}

export function formatAge(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

interface Style {
  ago: boolean;
  roleMax: number;
}

/** A stored field (a role, a label) for the line: made safe to print, then shortened. */
function cut(text: string, max: number): string {
  const safe = safeField(text);
  const chars = [...safe];
  return chars.length <= max ? safe : `${chars.slice(0, max - 1).join("")}…`;
}

function segment(view: MemberView, style: Style): string {
  const role = cut(view.role, style.roleMax);
  const age = (seconds: number) => `(${formatAge(seconds)}${style.ago ? " ago" : ""})`;
  const beat = view.beatAgeSec === null ? "" : ` ${age(view.beatAgeSec)}`;
  switch (view.status) {
    case "unreadable":
      return `${role} ⚠ unreadable`;
    case "done":
    case "failed":
    case "cancelled":
    case "timeout":
      return `${role} ${view.progress}% ${view.status}`;
    case "stale":
      return `${role} ${view.progress}%${beat} ⚠ stale`;
    case "never-started":
      return `${role} 0% (no beat, ${formatAge(view.sinceDispatchSec)}) ⚠ never-started`;
    case "queued":
      return `${role} queued (${formatAge(view.sinceDispatchSec)})`;
    case "finalizing":
      return `${role} ${view.progress}% finalizing${beat}`;
    default:
      return `${role} ${view.progress}%${beat}`;
  }
}

function priority(view: MemberView): number {
  if (PROBLEMS.has(view.status)) return 3;
  if (isOpen(view)) return 2;
  return 1;
}

const length = (text: string) => [...text].length;

/**
 * The status line, at most `max` characters: segments first lose " ago",
 * then long role names are cut, then the least urgent segments fold into
 * `+N more` (problems are kept longest).
 */
export function batchStatusLine(
  label: string,
  members: MemberView[],
  max = STATUS_LINE_MAX,
): string {
  const head = `[${cut(label, 40)}] ${batchHeader(members)}`;
  const open = members.some(isOpen);
  const shown = open ? members : members.filter((m) => m.status !== "done");
  const styles: Style[] = [
    { ago: true, roleMax: 64 },
    { ago: false, roleMax: 64 },
    { ago: false, roleMax: 16 },
    { ago: false, roleMax: 10 },
  ];
  for (const style of styles) {
    const line = [head, ...shown.map((m) => segment(m, style))].join(" | ");
    if (length(line) <= max) return line;
  }
  const style = styles[styles.length - 1];
  const order = shown.map((m, i) => ({ m, i })).sort((a, b) =>
    priority(b.m) - priority(a.m) || a.i - b.i
  );
  for (let keep = order.length - 1; keep >= 0; keep--) {
    const kept = order.slice(0, keep).sort((a, b) => a.i - b.i);
    const parts = [head, ...kept.map(({ m }) => segment(m, style)), `+${shown.length - keep} more`];
    const line = parts.join(" | ");
    if (length(line) <= max) return line;
  }
  return cut(head, max);
}
