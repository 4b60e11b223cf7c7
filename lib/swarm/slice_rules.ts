/**
 * What an implementation slice DAG needs beyond the DAG rules `--from-dag`
 * applies (which already refuse unknown nodes, cycles and two slices of one
 * level owning the same path): each slice says what it owns, slices that run
 * side by side are isolated, and each belongs to the request it was planned for.
 */
import type { DagAnalysis } from "../dag/dag.ts";

export const SLICES_FORMAT =
  'A slice DAG is {"nodes": [{"id": "api", "role": "rd", "prompt": "<the slice\'s task>", "owns": ["src/api/"], "isolation": "worktree"}, …], "edges": [{"from": "api", "to": "ui"}]}: `to` starts after `from` is merged; slices of one level run at the same time, each in its own git worktree, and own disjoint files or folders.';

export function slicePlanProblems(analysis: DagAnalysis, rid: string): string[] {
  const problems: string[] = [];
  for (const level of analysis.levels) {
    for (const id of level) {
      const node = analysis.byId.get(id)!;
      if (!node.owns?.length) {
        problems.push(`slice "${id}" names no files or folders it owns (owns)`);
      }
      if (level.length > 1 && node.isolation !== "worktree") {
        problems.push(
          `slice "${id}" runs beside ${level.length - 1} other(s) without "isolation": "worktree"`,
        );
      }
      if (node.requestId !== undefined && node.requestId !== rid) {
        problems.push(`slice "${id}" belongs to request ${node.requestId}, not ${rid}`);
      }
    }
  }
  return problems;
}
