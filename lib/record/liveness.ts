/**
 * Liveness is computed when a record is read, never by a background process:
 * a record with no heartbeat 60 s after dispatch is `never-started`, one whose
 * last beat is older than the stale window is `stale`. Neither cancels, kills
 * or signals anything; the user decides what to do with them.
 */
import type { DispatchRecord } from "./record.ts";
import { isTerminal, type RecordStatus } from "../state/record.ts";

export const NEVER_STARTED_AFTER_MS = 60_000;
export const STALE_AFTER_MS = 5 * 60_000;

export type Liveness = "pending" | "alive" | "stale" | "never-started" | "terminal";

/**
 * Five minutes, or two heartbeat intervals when the dispatch asked for a
 * cadence slower than 150 s, so a sub-agent beating as told never looks stale.
 */
export function staleAfterMs(record: Pick<DispatchRecord, "heartbeatIntervalSec">): number {
  return Math.max(STALE_AFTER_MS, record.heartbeatIntervalSec * 2000);
}

function ms(iso: string | null): number | undefined {
  if (!iso) return undefined;
  const value = Date.parse(iso);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * How far a stamp is from now, either way: a stamp from the future (a clock
 * stepped back, or a hostile record) ages as it gets further ahead, so it
 * cannot keep a dead sub-agent "alive, 0 s ago" for hours; within the stale
 * window, skew between two clocks is tolerated.
 */
function distance(now: Date, stamp: number): number {
  return Math.abs(now.getTime() - stamp);
}

export function liveness(record: DispatchRecord, now: Date): Liveness {
  if (isTerminal(record.status)) return "terminal";
  const last = ms(record.lastBeatAt);
  if (last === undefined) {
    const created = ms(record.createdAt) ?? now.getTime();
    return distance(now, created) >= NEVER_STARTED_AFTER_MS ? "never-started" : "pending";
  }
  return distance(now, last) >= staleAfterMs(record) ? "stale" : "alive";
}

/** The status to show: terminal ones as stored, live ones with stale/never-started applied. */
export function effectiveStatus(record: DispatchRecord, now: Date): RecordStatus {
  const live = liveness(record, now);
  switch (live) {
    case "terminal":
      return record.status;
    case "stale":
      return "stale";
    case "never-started":
      return "never-started";
    case "pending":
      return record.status === "never-started" ? "queued" : record.status;
    case "alive":
      return record.status === "stale" || record.status === "never-started"
        ? "running"
        : record.status;
  }
}

/** Progress of the newest heartbeat (0 before the first one). */
export function lastProgress(record: DispatchRecord): number {
  return record.heartbeats.at(-1)?.progress ?? 0;
}

/** Whole seconds since the newest heartbeat; null before the first one. */
export function lastBeatAgeSec(record: DispatchRecord, now: Date): number | null {
  const last = ms(record.lastBeatAt);
  return last === undefined ? null : Math.floor(distance(now, last) / 1000);
}

export function ageSinceDispatchSec(record: DispatchRecord, now: Date): number {
  const created = ms(record.createdAt) ?? now.getTime();
  return Math.floor(distance(now, created) / 1000);
}
