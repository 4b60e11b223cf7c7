/**
 * What the next `--from-dag` call does, decided from the state of each node's
 * newest record in the batch: wait while anything is still running, stop when
 * a node failed, otherwise dispatch the first level that still has
 * undispatched nodes, at most `maxParallel` of them (a wave). Every node of
 * that level has its predecessors done, because every lower level is done.
 */
import type { DagAnalysis } from "../dag/dag.ts";
import { type NodeProgress, pendingProgress } from "../dag/progress.ts";

export type Decision =
  | { kind: "complete" }
  /** `level` null: every node is out, some still run. */
  | { kind: "wait"; level: number | null; remainingLevels: number; waiting: NodeProgress[] }
  | { kind: "blocked"; failed: NodeProgress[]; blocked: string[] }
  | {
    kind: "dispatch";
    level: number;
    wave: number;
    wavesInLevel: number;
    nodes: string[];
    /** Levels that still have undispatched nodes once this wave is out. */
    remainingLevels: number;
  };

/** Every node that depends, directly or not, on one of `roots`. */
function descendants(analysis: DagAnalysis, roots: Set<string>): string[] {
  const successors = new Map<string, string[]>();
  for (const [node, preds] of analysis.predecessors) {
    for (const pred of preds) {
      const list = successors.get(pred);
      if (list) list.push(node);
      else successors.set(pred, [node]);
    }
  }
  const seen = new Set<string>();
  const queue = [...roots];
  for (let head = 0; head < queue.length; head++) {
    for (const next of successors.get(queue[head]) ?? []) {
      if (seen.has(next) || roots.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return analysis.dag.nodes.map((n) => n.id).filter((id) => seen.has(id));
}

function firstPendingLevel(
  analysis: DagAnalysis,
  states: Map<string, NodeProgress>,
): number | undefined {
  const index = analysis.levels.findIndex((level) =>
    level.some((id) => (states.get(id)?.state ?? "pending") === "pending")
  );
  return index === -1 ? undefined : index + 1;
}

export function decideNext(
  analysis: DagAnalysis,
  states: Map<string, NodeProgress>,
  maxParallel: number,
): Decision {
  const all = analysis.dag.nodes.map((n) => states.get(n.id) ?? pendingProgress(n.id));
  const waiting = all.filter((p) => p.state === "open" || p.state === "stuck");
  if (waiting.length) {
    const level = firstPendingLevel(analysis, states) ?? null;
    const remainingLevels = analysis.levels.filter((ids) =>
      ids.some((id) =>
        (states.get(id)?.state ?? "pending") === "pending"
      )
    ).length;
    return { kind: "wait", level, remainingLevels, waiting };
  }
  const failed = all.filter((p) => p.state === "failed");
  if (failed.length) {
    const blocked = descendants(analysis, new Set(failed.map((p) => p.node)))
      .filter((id) => states.get(id)?.state !== "done");
    return { kind: "blocked", failed, blocked };
  }
  const level = firstPendingLevel(analysis, states);
  if (level === undefined) return { kind: "complete" };
  const members = analysis.levels[level - 1];
  const candidates = members.filter((id) => (states.get(id)?.state ?? "pending") === "pending");
  const nodes = candidates.slice(0, maxParallel);
  const alreadyOut = members.length - candidates.length;
  const wave = Math.floor(alreadyOut / maxParallel) + 1;
  const wavesInLevel = wave - 1 + Math.ceil(candidates.length / maxParallel);
  const chosen = new Set(nodes);
  let remainingLevels = 0;
  for (let i = level - 1; i < analysis.levels.length; i++) {
    const left = analysis.levels[i].some((id) =>
      !chosen.has(id) && (states.get(id)?.state ?? "pending") === "pending"
    );
    if (left) remainingLevels++;
  }
  return { kind: "dispatch", level, wave, wavesInLevel, nodes, remainingLevels };
}
