/**
 * The sub-agents of one request, as a resuming orchestrator needs them: each record's id, role,
 * and whether it is live (has the move), stale (stopped beating or never began) or finished.
 */
import type { Project } from "../workspace/project.ts";
import { listRecords } from "./record.ts";
import { liveness } from "./liveness.ts";
import { recordIdOf } from "./names.ts";
import { basename } from "../infra/std.ts";

export interface RequestSubAgent {
  record: string;
  role: string;
  state: "live" | "stale" | "finished";
  outcome: string | null;
  lastBeatAt: string | null;
}

/** At most this many, newest first; older ones are counted in `more`. */
export const SUB_AGENTS_SHOWN = 12;

export async function requestSubAgents(
  project: Project,
  sid: string,
  rid: string,
  now: Date,
): Promise<{ subAgents: RequestSubAgent[]; more: number }> {
  const { records } = await listRecords(project, sid);
  const mine = records.filter(({ record }) => record.requestId === rid);
  const subAgents = mine.slice(0, SUB_AGENTS_SHOWN).map(({ path, record }) => {
    const live = liveness(record, now);
    return {
      record: recordIdOf(basename(path)),
      role: record.role,
      state: live === "terminal"
        ? "finished" as const
        : live === "alive" || live === "pending"
        ? "live" as const
        : "stale" as const,
      outcome: record.outcome,
      lastBeatAt: record.lastBeatAt,
    };
  });
  return { subAgents, more: Math.max(0, mine.length - SUB_AGENTS_SHOWN) };
}
