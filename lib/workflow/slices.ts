/**
 * Where RD's implementation slices of a request stand: the `--from-dag` batch
 * `swarm slices` names (`slices-<rid>-<hash>`), read the way the scheduler
 * reads it, so "merged", "still open" and "failed" mean the same here as for
 * `--from-dag`. The workflow's RD step and `swarm slices` decide from it.
 */
import type { Project } from "../workspace/project.ts";
import { readBoundedText } from "../infra/fs/files.ts";
import type { DispatchRecord } from "../record/record.ts";

export interface SliceRun {
  batchId: string;
  /** Project-relative path of the slice DAG the batch was sent from. */
  source: string;
  /** The nodes sent so far, in the order they went out. */
  nodes: string[];
  /** Every node of the DAG went out and is merged (or deliberately dropped). */
  complete: boolean;
  /** Nodes whose sub-agent works, or whose change waits to be finalized or merged. */
  open: string[];
  /** Nodes that failed or are in conflict: the user decides. */
  failed: string[];
  /** When the newest slice was dispatched. */
  lastAt: string;
}

export const sliceBatchPrefix = (rid: string) => `slices-${rid}-`;

/** Whether a record is one of the request's implementation slices. */
export function isSliceRecord(record: Pick<DispatchRecord, "batchId">, rid: string): boolean {
  return record.batchId.startsWith(sliceBatchPrefix(rid));
}

/** The state of one slices batch; undefined when it has no DAG section yet. */
export async function sliceBatch(
  project: Project,
  sid: string,
  batchId: string,
  now: Date,
): Promise<SliceRun | undefined> {
  // Loaded only when a request has slices: the batch and DAG readers bring their schemas.
  const [{ readBatch }, { batchDagOf }, { readDagProgress }] = await Promise.all([
    import("../batch/batch.ts"),
    import("../dag/dag.ts"),
    import("../dag/progress.ts"),
  ]);
  const batch = await readBatch(project, sid, batchId);
  const dag = batch ? batchDagOf(batch) : undefined;
  if (!dag) return undefined;
  const nodes = [...new Set(dag.dispatched.map((d) => d.node))];
  const { progress } = await readDagProgress(project, sid, batchId, new Set(nodes), now);
  const states = nodes.map((node) => progress.get(node)?.state ?? "pending");
  return {
    batchId,
    source: dag.source,
    nodes,
    complete: nodes.length === dag.nodes && states.every((s) => s === "done"),
    open: nodes.filter((_, i) => states[i] === "open" || states[i] === "stuck"),
    failed: nodes.filter((_, i) => states[i] === "failed"),
    lastAt: dag.dispatched.reduce((at, d) => d.at > at ? d.at : at, ""),
  };
}

/**
 * The request's newest slices batch with a slice dispatched since `since`
 * (`records`: the request's records, newest first); undefined when RD did
 * not slice this round.
 */
export async function currentSliceRun(
  project: Project,
  sid: string,
  rid: string,
  records: DispatchRecord[],
  since: string,
): Promise<SliceRun | undefined> {
  const newest = records.find((r) => isSliceRecord(r, rid) && r.createdAt >= since);
  return newest ? await sliceBatch(project, sid, newest.batchId, new Date()) : undefined;
}

/**
 * RD planning's slice DAG for the request (`rd/slices-<rid>.json`) that has not run to the end:
 * its `--from-dag` batch is absent or has a slice not yet merged. Undefined when there is no
 * such file, when every slice is merged, or when the file cannot be read as a DAG (`swarm
 * slices` reports that).
 */
export async function pendingSlicePlan(
  project: Project,
  sid: string,
  rid: string,
  now: Date,
): Promise<{ path: string; batchId: string } | undefined> {
  const path = project.layout.rdSlices(sid, rid);
  const text = await readBoundedText(path).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const { dagHash, parseDag } = await import("../dag/dag.ts");
    const { dag } = await parseDag(text, path);
    // The batch `swarm slices` names for this DAG.
    const batchId = `${sliceBatchPrefix(rid)}${(await dagHash(dag)).slice(0, 6)}`;
    const run = await sliceBatch(project, sid, batchId, now);
    return run?.complete ? undefined : { path, batchId };
  } catch {
    return undefined;
  }
}
