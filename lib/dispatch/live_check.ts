/**
 * One live sub-agent per role and request: an orchestrator that lost its context must not
 * dispatch a second copy of a role whose record is still alive (or just dispatched).
 */
import type { Project } from "../workspace/project.ts";
import { listRecords } from "../record/record.ts";
import { liveness } from "../record/liveness.ts";
import { recordIdOf } from "../record/names.ts";
import { basename } from "../infra/std.ts";
import { gateError } from "../infra/errors.ts";

/** Refuses (exit 3, SUB_AGENT_LIVE) when `role` already has a live record in request `rid`. */
export async function refuseLiveDuplicate(
  project: Project,
  sid: string,
  rid: string,
  role: string,
  now: Date,
): Promise<void> {
  const { records } = await listRecords(project, sid);
  const live = records.find(({ record }) =>
    record.requestId === rid && record.role === role &&
    ["alive", "pending"].includes(liveness(record, now))
  );
  if (!live) return;
  const id = recordIdOf(basename(live.path));
  throw gateError(
    "SUB_AGENT_LIVE",
    `The ${role} sub-agent of request ${rid} is still live (record ${id}, status ${live.record.status}): ` +
      "wait for it to return and finalize it; do not dispatch a second copy. Once its heartbeats stop " +
      "for five minutes it counts as stale and a new dispatch is allowed.",
    {
      data: {
        rid,
        role,
        record: id,
        status: live.record.status,
        lastBeatAt: live.record.lastBeatAt,
      },
      instructions: [
        "It has the move: when it returns, review its change and finalize it with its return JSON " +
        `(peaks sub-agent finalize --record ${id} --outcome done --result-json '<return-json>' --json).`,
      ],
    },
  );
}
