/**
 * One fan-out per DAG: a `--from-dag` call that would open a new batch for a graph another batch
 * of the session already carries (running, or done) is refused, and its nextAction continues that
 * batch. Only a batch that stopped on a failed node may be started over under a new batch id.
 * Calls that open new batches at the same moment take turns on the session's fan-out lock and
 * check again under it, so however many run at once the graph goes out once.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { listBatchFiles, readBatch } from "../batch/batch.ts";
import { batchDagOf } from "../dag/dag.ts";
import { readDagProgress } from "../dag/progress.ts";
import { gateError, PeaksError } from "../infra/errors.ts";
import { withLock } from "../infra/fs/lock.ts";
import { governanceWords } from "../budget/flags.ts";
import { commandLine, projectArgs } from "../infra/shell.ts";
import { type DagCall, dagCallWords } from "./_call.ts";

async function sameDagBatch(ctx: Ctx, call: DagCall, batchId: string) {
  const { project, sessionId } = call.session;
  let batch;
  try {
    batch = await readBatch(project, sessionId, batchId);
  } catch (error) {
    if (error instanceof PeaksError) return undefined;
    throw error;
  }
  const dag = batch ? batchDagOf(batch) : undefined;
  if (!dag || dag.hash !== call.hash) return undefined;
  const state = await readDagProgress(
    project,
    sessionId,
    batchId,
    new Set(call.analysis.byId.keys()),
    ctx.now(),
  );
  const nodes = [...state.progress.values()];
  return nodes.some((p) => p.state === "failed") ? undefined : nodes;
}

export async function refuseSecondFanOut(ctx: Ctx, call: DagCall): Promise<void> {
  const { project, sessionId } = call.session;
  for (const info of await listBatchFiles(project, sessionId)) {
    if (info.batchId === call.batchId) continue;
    const nodes = await sameDagBatch(ctx, call, info.batchId);
    if (!nodes) continue;
    const open = nodes.filter((p) => p.state !== "done").map((p) => p.node);
    const again = commandLine([
      ...dagCallWords(call.flags, call.session, call.dagPath, info.batchId),
      ...governanceWords(call.flags),
      ...projectArgs(project.root),
    ]);
    throw gateError(
      "DAG_ALREADY_DISPATCHED",
      `${call.dagPath} already goes out in batch ${info.batchId}${
        open.length ? ` (still open: ${open.join(", ")})` : " (every node done)"
      }; a new batch would dispatch every node again. Continue that batch instead.`,
      { data: { batchId: info.batchId, open }, nextActions: [again] },
    );
  }
}

/**
 * Writes a new batch's first wave under the session's fan-out lock, after checking again that no
 * other batch took the graph meanwhile (the check before the lock only spares the work).
 */
export function firstWaveOnce<T>(ctx: Ctx, call: DagCall, write: () => Promise<T>): Promise<T> {
  const { project, sessionId } = call.session;
  return withLock(project.layout.fanOutLock(sessionId), async () => {
    await refuseSecondFanOut(ctx, call);
    return await write();
  });
}
