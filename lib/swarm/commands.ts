/** The follow-up commands the swarm hands out, with the session when it did not come from the binding. */
import type { SessionContext } from "../session/session.ts";
import { peaksCommand } from "../session/session.ts";

export function dispatchDagCommand(
  session: SessionContext,
  dagPath: string,
  batchId: string,
): string {
  return peaksCommand(session, [
    "sub-agent",
    "dispatch",
    "--from-dag",
    dagPath,
    "--batch-id",
    batchId,
  ]);
}

export function planCommand(session: SessionContext, rid: string, extra: string[] = []): string {
  return peaksCommand(session, ["swarm", "plan", "--rid", rid, ...extra]);
}

export function convergeCommand(
  session: SessionContext,
  rid: string,
  extra: string[] = [],
): string {
  return peaksCommand(session, ["swarm", "converge", "--rid", rid, ...extra]);
}
