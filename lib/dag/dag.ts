/**
 * The fan-out graph read by `sub-agent dispatch --from-dag` and written by
 * `swarm plan` (`sc/slice-dag-<rid>.json`): nodes (one sub-agent each) and edges
 * (`to` runs after `from`). Validation names what is wrong (the cycle, the
 * unknown endpoint); levels are computed in linear time, so a hostile file
 * costs little before it is refused by the size caps below.
 */
import { PeaksError } from "../infra/errors.ts";
import { describeIssues } from "../infra/fs/json.ts";
import { ownershipProblems } from "./_ownership.ts";
import { isDag } from "./rules.ts";
import { loadSchemas } from "../infra/shape/lazy.ts";
import {
  type Dag,
  DAG_MAX_BYTES,
  DAG_MAX_EDGES,
  DAG_MAX_NODES,
  type DagNode,
  sliceDagSchemas,
} from "../state/slice_dag.ts";

export type { BatchDag, Dag, DagEdge, DagNode } from "../state/slice_dag.ts";
export { DAG_MAX_BYTES, DAG_MAX_NODES } from "../state/slice_dag.ts";
export { batchDagOf } from "./rules.ts";

export interface DagProblem {
  kind: "duplicate-id" | "unknown-endpoint" | "self-loop" | "cycle" | "foundation" | "ownership";
  message: string;
  nodes: string[];
}

export interface DagAnalysis {
  dag: Dag;
  /** Node ids per level (level 1 first); foundation nodes first within a level, then file order. */
  levels: string[][];
  levelOf: Map<string, number>;
  byId: Map<string, DagNode>;
  /** Direct predecessors of each node (edges deduplicated). */
  predecessors: Map<string, string[]>;
  edgeCount: number;
}

/**
 * Walks backwards from a node that Kahn's algorithm could not remove: each
 * such node has a predecessor that was not removed either, so the walk must
 * come back to a node it saw, and the loop between is a cycle.
 */
function findCycle(start: number, preds: number[][], left: Uint8Array): number[] {
  const seenAt = new Map<number, number>();
  const path: number[] = [];
  let node = start;
  while (!seenAt.has(node)) {
    seenAt.set(node, path.length);
    path.push(node);
    node = preds[node].find((p) => left[p] === 1)!;
  }
  return path.slice(seenAt.get(node)).reverse();
}

/** The graph as indexes: each node's predecessors and successors, edges deduplicated. */
interface Wiring {
  preds: number[][];
  succs: number[][];
  edgeCount: number;
}

/** Indexes the nodes and edges; duplicate ids, unknown endpoints, self-loops and foundation breaches are problems. */
function wire(dag: Dag, problems: DagProblem[]): Wiring {
  const index = new Map<string, number>();
  dag.nodes.forEach((node, i) => {
    if (index.has(node.id)) {
      problems.push({
        kind: "duplicate-id",
        message: `node id "${node.id}" is used twice (nodes ${index.get(node.id)} and ${i})`,
        nodes: [node.id],
      });
    } else index.set(node.id, i);
  });
  const count = dag.nodes.length;
  const preds: number[][] = Array.from({ length: count }, () => []);
  const succs: number[][] = Array.from({ length: count }, () => []);
  const seenEdges = new Set<string>();
  dag.edges.forEach((edge, i) => {
    const from = index.get(edge.from);
    const to = index.get(edge.to);
    const unknown = [from === undefined && edge.from, to === undefined && edge.to]
      .filter((v): v is string => typeof v === "string");
    if (unknown.length) {
      problems.push({
        kind: "unknown-endpoint",
        message: `edge ${i} (${edge.from} → ${edge.to}) names unknown node${
          unknown.length > 1 ? "s" : ""
        } ${unknown.map((u) => `"${u}"`).join(" and ")}`,
        nodes: unknown,
      });
      return;
    }
    if (from === to) {
      problems.push({
        kind: "self-loop",
        message: `edge ${i} makes "${edge.from}" depend on itself`,
        nodes: [edge.from],
      });
      return;
    }
    const key = `${from}>${to}`;
    if (seenEdges.has(key)) return;
    seenEdges.add(key);
    preds[to!].push(from!);
    succs[from!].push(to!);
    const target = dag.nodes[to!];
    if (target.foundation && !dag.nodes[from!].foundation) {
      problems.push({
        kind: "foundation",
        message:
          `foundation node "${target.id}" depends on "${edge.from}", which is not a foundation node (foundation nodes may depend only on foundation nodes)`,
        nodes: [target.id, edge.from],
      });
    }
  });
  return { preds, succs, edgeCount: seenEdges.size };
}

/**
 * Kahn's algorithm; a node's level is one more than its deepest
 * predecessor's. A cycle is a problem, named by its nodes.
 */
function depths(dag: Dag, wiring: Wiring, problems: DagProblem[]): Int32Array {
  const { preds, succs } = wiring;
  const count = dag.nodes.length;
  const indegree = preds.map((p) => p.length);
  const depth = new Int32Array(count);
  const queue: number[] = [];
  for (let i = 0; i < count; i++) if (indegree[i] === 0) queue.push(i);
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    for (const next of succs[node]) {
      if (depth[node] + 1 > depth[next]) depth[next] = depth[node] + 1;
      if (--indegree[next] === 0) queue.push(next);
    }
  }
  if (queue.length < count) {
    const left = new Uint8Array(count);
    for (let i = 0; i < count; i++) if (indegree[i] > 0) left[i] = 1;
    const cycle = findCycle(left.indexOf(1), preds, left).map((i) => dag.nodes[i].id);
    problems.push({
      kind: "cycle",
      message: `the edges form a cycle: ${[...cycle, cycle[0]].join(" → ")}`,
      nodes: cycle,
    });
  }
  return depth;
}

/** Checks the graph and computes its levels; problems instead of an analysis when it is broken. */
export function analyzeDag(dag: Dag): { problems: DagProblem[]; analysis?: DagAnalysis } {
  const problems: DagProblem[] = [];
  const wiring = wire(dag, problems);
  if (problems.some((p) => p.kind === "duplicate-id")) return { problems };
  const depth = depths(dag, wiring, problems);
  if (problems.length) return { problems };

  const levels: number[][] = [];
  for (let i = 0; i < dag.nodes.length; i++) (levels[depth[i]] ??= []).push(i);
  const byId = new Map<string, DagNode>();
  const levelOf = new Map<string, number>();
  const predecessors = new Map<string, string[]>();
  dag.nodes.forEach((node, i) => {
    byId.set(node.id, node);
    levelOf.set(node.id, depth[i] + 1);
    predecessors.set(node.id, wiring.preds[i].map((p) => dag.nodes[p].id));
  });
  const ordered = levels.map((level) => {
    const first = level.filter((i) => dag.nodes[i].foundation === true);
    const rest = level.filter((i) => dag.nodes[i].foundation !== true);
    return [...first, ...rest].map((i) => dag.nodes[i].id);
  });
  problems.push(...ownershipProblems(ordered.map((ids) => ids.map((id) => byId.get(id)!))));
  if (problems.length) return { problems };
  return {
    problems,
    analysis: { dag, levels: ordered, levelOf, byId, predecessors, edgeCount: wiring.edgeCount },
  };
}

function dagInvalid(source: string, message: string, problems: DagProblem[]): PeaksError {
  return new PeaksError("DAG_INVALID", `The DAG in ${source} is invalid: ${message}.`, {
    exit: 2,
    data: { path: source, problems },
    instructions: [
      'A DAG is {nodes:[{id, role, prompt | promptFile, label?, foundation?, complexity?, requestId?, artifacts?, isolation?: "worktree", owns?: [paths]}], edges:[{from, to}]}; `to` runs after `from`.',
    ],
  });
}

function tooLarge(source: string, what: string, count: number, cap: number): PeaksError {
  return new PeaksError(
    "DAG_TOO_LARGE",
    `The DAG in ${source} has ${count} ${what}; peaks takes at most ${cap}. Split the work into several DAGs, one per phase.`,
    { exit: 3, data: { path: source, [what]: count, cap } },
  );
}

/**
 * Parses and checks DAG text: size caps first (cheap), then the schema, then
 * the graph. Every refusal names the file and what is wrong in it. A graph
 * the zod-free check vouches for skips zod; any other is the schema's to
 * decide and word.
 */
export async function parseDag(text: string, source: string): Promise<DagAnalysis> {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > DAG_MAX_BYTES) throw tooLarge(source, "bytes", bytes, DAG_MAX_BYTES);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw dagInvalid(source, text.trim() === "" ? "the file is empty" : "it is not valid JSON", []);
  }
  const shape = raw as { nodes?: unknown; edges?: unknown } | null;
  if (shape && Array.isArray(shape.nodes) && shape.nodes.length > DAG_MAX_NODES) {
    throw tooLarge(source, "nodes", shape.nodes.length, DAG_MAX_NODES);
  }
  if (shape && Array.isArray(shape.edges) && shape.edges.length > DAG_MAX_EDGES) {
    throw tooLarge(source, "edges", shape.edges.length, DAG_MAX_EDGES);
  }
  let dag: Dag;
  if (isDag(raw)) dag = raw;
  else {
    const { DagSchema } = await loadSchemas(sliceDagSchemas);
    const parsed = DagSchema.safeParse(raw);
    if (!parsed.success) throw dagInvalid(source, describeIssues(parsed.error), []);
    dag = parsed.data;
  }
  const { problems, analysis } = analyzeDag(dag);
  if (!analysis) {
    const shown = problems.slice(0, 3).map((p) => p.message).join("; ");
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : "";
    throw dagInvalid(source, `${shown}${more}`, problems);
  }
  return analysis;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * The graph's identity: sha256 of its nodes (sorted by id) and edges (sorted,
 * deduplicated), so reformatting the file keeps it and any change of a node
 * or an edge does not. `rid` and `batchId` are labels, not part of it.
 */
export async function dagHash(dag: Dag): Promise<string> {
  const nodes = [...dag.nodes].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const edges = [...new Set(dag.edges.map((e) => JSON.stringify([e.from, e.to])))].sort();
  const text = JSON.stringify(canonical({ nodes, edges }));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
