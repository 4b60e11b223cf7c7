/**
 * Where each node of a DAG batch stands, from the newest record of that node
 * in the batch (a node dispatched again into the same batch counts by its
 * newest record). The `--from-dag` scheduler and `swarm converge` both read
 * it, so "done", "still running" and "failed" mean the same in both.
 */
import { type Batch, readBatch } from "../batch/batch.ts";
import { type BatchDag, batchDagOf } from "./dag.ts";
import { effectiveStatus, lastBeatAgeSec, lastProgress } from "../record/liveness.ts";
import type { Project } from "../workspace/project.ts";
import type { DispatchRecord } from "../record/record.ts";
import { readRecords } from "../record/record.ts";
import type { RecordStatus } from "../state/record.ts";
import type { SliceWorktree } from "../record/worktree.ts";

/** pending: no record yet; open: queued/running/finalizing; stuck: stale, never-started or unreadable. */
export type NodeState = "pending" | "open" | "stuck" | "done" | "failed";

export interface NodeProgress {
  node: string;
  state: NodeState;
  status: RecordStatus | "unreadable" | null;
  /** Absolute path of the node's newest record. */
  recordPath: string | null;
  n: number | null;
  progress: number;
  lastBeatAgeSec: number | null;
  error: string | null;
  record: DispatchRecord | null;
}

export function stateOf(status: RecordStatus | "unreadable"): NodeState {
  switch (status) {
    case "done":
      return "done";
    case "failed":
    case "cancelled":
    case "timeout":
      return "failed";
    case "stale":
    case "never-started":
    case "unreadable":
      return "stuck";
    default:
      return "open";
  }
}

/**
 * Where an isolated node stands once its record is done: done only when its
 * change is merged (or deliberately dropped), failed on a conflict (the
 * orchestrator decides), pending again when it is to be redone, open while
 * its change waits to be merged.
 */
export function sliceState(worktree: SliceWorktree): NodeState {
  switch (worktree.state) {
    case "merged":
    case "discarded":
      return "done";
    case "redo":
      return "pending";
    case "conflict":
      return "failed";
    default:
      return "open";
  }
}

export function pendingProgress(node: string): NodeProgress {
  return {
    node,
    state: "pending",
    status: null,
    recordPath: null,
    n: null,
    progress: 0,
    lastBeatAgeSec: null,
    error: null,
    record: null,
  };
}

export interface DagBatchState {
  batch: Batch | undefined;
  /** null: the batch has no DAG section (or does not exist); undefined: the section is malformed. */
  dag: BatchDag | null | undefined;
  progress: Map<string, NodeProgress>;
}

export async function readDagProgress(
  project: Project,
  sid: string,
  batchId: string,
  nodes: ReadonlySet<string>,
  now: Date,
): Promise<DagBatchState> {
  const progress = new Map<string, NodeProgress>();
  const batch = await readBatch(project, sid, batchId);
  if (!batch) return { batch, dag: null, progress };
  const dag = batchDagOf(batch);
  const nodeOfRecord = new Map((dag?.dispatched ?? []).map((d) => [d.record, d.node]));
  const paths = batch.members.map((m) => project.layout.dispatchRecord(sid, m.record));
  const listing = await readRecords(paths);
  const byPath = new Map(listing.records.map((e) => [e.path, e.record]));
  batch.members.forEach((member, i) => {
    const record = byPath.get(paths[i]);
    const node = record?.graphNodeId ?? nodeOfRecord.get(member.record);
    if (node === undefined || node === null || !nodes.has(node)) return;
    if (!record) {
      progress.set(node, {
        ...pendingProgress(node),
        state: "stuck",
        status: "unreadable",
        recordPath: paths[i],
        n: member.n,
      });
      return;
    }
    const status = effectiveStatus(record, now);
    progress.set(node, {
      node,
      state: status === "done" && record.worktree ? sliceState(record.worktree) : stateOf(status),
      status,
      recordPath: paths[i],
      n: member.n,
      progress: lastProgress(record),
      lastBeatAgeSec: lastBeatAgeSec(record, now),
      error: record.error,
      record,
    });
  });
  return { batch, dag, progress };
}
