/**
 * One heartbeat applied to a record: the pure step inside the locked update
 * that `sub-agent heartbeat` and the detached supervisor both run, so a beat
 * means the same thing whoever sends it.
 */
import { liveness } from "./liveness.ts";
import type { DispatchRecord } from "./record.ts";
import { MAX_HEARTBEATS, type RecordStatus, type STAGES } from "../state/record.ts";
import { isoTime } from "../infra/ids.ts";

export const BEAT_STATUSES = ["running", "finalizing", "done", "failed"] as const;
export type BeatStatus = (typeof BEAT_STATUSES)[number];

export interface Beat {
  status: BeatStatus;
  progress: number;
  note: string | null;
  stage: (typeof STAGES)[number] | null;
}

export interface AppliedBeat {
  next: DispatchRecord;
  /** What the record was before this beat revived it, or null. */
  revivedFrom: "stale" | "never-started" | null;
}

/**
 * Appends the beat (keeping the newest MAX_HEARTBEATS), sets lastBeatAt and
 * the status, ends the record on done/failed and revives a stale or
 * never-started one. The caller checks that the record is not terminal.
 */
export function applyBeat(record: DispatchRecord, beat: Beat, now: Date): AppliedBeat {
  const at = isoTime(now);
  const live = liveness(record, now);
  const revivedFrom = live === "stale" || record.status === "stale"
    ? "stale"
    : live === "never-started" || record.status === "never-started"
    ? "never-started"
    : null;
  const beats = [...record.heartbeats, { at, ...beat }];
  const dropped = Math.max(0, beats.length - MAX_HEARTBEATS);
  const ends = beat.status === "done" || beat.status === "failed";
  const next: DispatchRecord = {
    ...record,
    updatedAt: at,
    status: beat.status as RecordStatus,
    stage: beat.stage ?? record.stage,
    heartbeats: beats.slice(dropped),
    lastBeatAt: at,
    truncated: record.truncated || dropped > 0,
    revivedAt: revivedFrom !== null ? at : record.revivedAt,
    outcome: ends ? beat.status as "done" | "failed" : record.outcome,
    completedAt: ends ? at : record.completedAt,
  };
  return { next, revivedFrom };
}
