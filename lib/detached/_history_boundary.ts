/**
 * The orchestrator's session history never reaches a detached vendor: a
 * prompt that carries its marker is refused wherever it came from.
 */
import { gateError } from "../infra/errors.ts";

/** A marker that only an orchestrator's own session history carries; never sent to a vendor. */
export const HISTORY_BOUNDARY = "@@@ORCHESTRATOR_SESSION_HISTORY_BOUNDARY@@@";

export function refuseHistoryBoundary(prompt: string, where: string): void {
  if (!prompt.includes(HISTORY_BOUNDARY)) return;
  throw gateError(
    "HISTORY_BOUNDARY_IN_PROMPT",
    `The prompt from ${where} contains ${HISTORY_BOUNDARY}: it carries the orchestrator's session history, which a detached sub-agent must never receive. Pass only the task, the files and the references.`,
    { data: { marker: HISTORY_BOUNDARY, source: where } },
  );
}
