/**
 * The DAG's rules without zod: the caps and allowed values both the schema
 * (dag_schema.ts) and the checks here use, a check that says yes only to a
 * graph the schema takes as it is, and the reader of a batch file's DAG
 * section. `dispatch --from-dag` and `swarm slices` load zod only for a file
 * this check refuses, to word what is wrong exactly as the schema does.
 * tests/unit/dag_rules_test.ts holds these to the schemas over thousands of
 * mutated graphs.
 */
import { isValidId } from "../infra/ids.ts";

/** Caps that keep a call bounded: a swarm has a handful of nodes, a big plan a few hundred. */
export const DAG_MAX_NODES = 1000;
export const DAG_MAX_EDGES = 20_000;
export const DAG_MAX_BYTES = 4 * 1024 * 1024;

export const COMPLEXITIES = ["trivial", "simple", "complex"] as const;
export const ISOLATIONS = ["worktree"] as const;
export const OWNS_MAX = 256;
export const ARTIFACTS_MAX = 32;
export const PATH_MAX = 4096;
export const ROLE_MAX = 256;
export const LABEL_MAX = 200;

export const ID_RULE =
  "must be 1-128 characters from A-Z a-z 0-9 . _ - starting with a letter or digit";
// deno-lint-ignore no-control-regex
export const CONTROL_OR_SPACE = /[\u0000-\u001f\u007f-\u009f\s]/u;

/** One sub-agent of the graph (the schema, dag_schema.ts, is typed by these). */
export interface DagNode {
  id: string;
  role: string;
  prompt?: string;
  /** Project-relative path of a file holding the prompt. */
  promptFile?: string;
  label?: string;
  foundation?: boolean;
  complexity?: (typeof COMPLEXITIES)[number];
  requestId?: string;
  /** Artefact paths the node's sub-agent will own (as `dispatch --write-artifact`). */
  artifacts?: string[];
  /** An implementation slice's own git worktree, merged back at finalize in DAG order. */
  isolation?: (typeof ISOLATIONS)[number];
  /** Project-relative files or folders the slice owns; two slices of one level may not share one. */
  owns?: string[];
}

/** `to` runs after `from`. */
export interface DagEdge {
  from: string;
  to: string;
}

export interface Dag {
  version?: 1;
  /** Set by `swarm plan`: the request the graph was planned for and the batch it goes out in. */
  rid?: string;
  batchId?: string;
  nodes: DagNode[];
  edges: DagEdge[];
}

/**
 * What `--from-dag` keeps in the batch file (`batch.dag`): the graph's
 * identity, so another graph under the same batch id is refused, and which
 * node went out in which record, so a node is never dispatched twice.
 */
export interface BatchDag {
  hash: string;
  /** Project-relative path of the file the graph came from. */
  source: string;
  nodes: number;
  levels: number;
  dispatched: Array<{ node: string; record: string; n: number; at: string }>;
}

type Fields = Record<string, unknown>;

function isPlainObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every key is one of `allowed` (a strict object). */
function onlyKeys(value: Fields, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

function isString(value: unknown, min: number, max = Infinity): value is string {
  return typeof value === "string" && value.length >= min && value.length <= max;
}

function isId(value: unknown): boolean {
  return typeof value === "string" && isValidId(value);
}

/** Absent, or a list of at most `max` strings of 1..PATH_MAX characters. */
function isPathList(value: unknown, max: number): boolean {
  if (value === undefined) return true;
  if (!Array.isArray(value) || value.length > max) return false;
  for (const item of value) if (!isString(item, 1, PATH_MAX)) return false;
  return true;
}

function oneOf(value: unknown, allowed: readonly string[]): boolean {
  return typeof value === "string" && allowed.includes(value);
}

const NODE_KEYS = new Set([
  "id",
  "role",
  "prompt",
  "promptFile",
  "label",
  "foundation",
  "complexity",
  "requestId",
  "artifacts",
  "isolation",
  "owns",
]);

function isNode(node: unknown): boolean {
  if (!isPlainObject(node) || !onlyKeys(node, NODE_KEYS)) return false;
  const { prompt, promptFile, label, foundation, complexity, requestId, isolation } = node;
  return isId(node.id) &&
    isString(node.role, 1, ROLE_MAX) && !CONTROL_OR_SPACE.test(node.role as string) &&
    (prompt === undefined) !== (promptFile === undefined) &&
    (prompt === undefined || isString(prompt, 1)) &&
    (promptFile === undefined || isString(promptFile, 1, PATH_MAX)) &&
    (label === undefined || isString(label, 1, LABEL_MAX)) &&
    (foundation === undefined || typeof foundation === "boolean") &&
    (complexity === undefined || oneOf(complexity, COMPLEXITIES)) &&
    (requestId === undefined || isId(requestId)) &&
    isPathList(node.artifacts, ARTIFACTS_MAX) &&
    (isolation === undefined || oneOf(isolation, ISOLATIONS)) &&
    isPathList(node.owns, OWNS_MAX);
}

const EDGE_KEYS = new Set(["from", "to"]);

function isEdge(edge: unknown): boolean {
  return isPlainObject(edge) && onlyKeys(edge, EDGE_KEYS) && isId(edge.from) && isId(edge.to);
}

const DAG_KEYS = new Set(["version", "rid", "batchId", "nodes", "edges"]);

/**
 * True only for a graph the schema takes unchanged: the same strict keys, types, lengths, ids
 * and exactly one of prompt and promptFile per node. Anything else is for the schema to judge.
 */
export function isDag(value: unknown): value is Dag {
  if (!isPlainObject(value) || !onlyKeys(value, DAG_KEYS)) return false;
  if (value.version !== undefined && value.version !== 1) return false;
  if (value.rid !== undefined && !isId(value.rid)) return false;
  if (value.batchId !== undefined && !isId(value.batchId)) return false;
  const { nodes, edges } = value;
  if (!Array.isArray(nodes) || nodes.length === 0 || !Array.isArray(edges)) return false;
  for (const node of nodes) if (!isNode(node)) return false;
  for (const edge of edges) if (!isEdge(edge)) return false;
  return true;
}

const HASH = /^[0-9a-f]{64}$/;

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
}

/**
 * The batch's DAG section: null when the batch has none, undefined when it is
 * malformed; the known fields only, as the schema (BatchDagSchema) reads it.
 */
export function batchDagOf(batch: Record<string, unknown>): BatchDag | null | undefined {
  const dag = batch.dag;
  if (dag === undefined || dag === null) return null;
  if (!isPlainObject(dag)) return undefined;
  const { hash, source, nodes, levels, dispatched } = dag;
  if (typeof hash !== "string" || !HASH.test(hash) || typeof source !== "string") return undefined;
  if (!isCount(nodes) || !isCount(levels) || !Array.isArray(dispatched)) return undefined;
  const rows: BatchDag["dispatched"] = [];
  for (const row of dispatched) {
    if (!isPlainObject(row)) return undefined;
    const { node, record, n, at } = row;
    if (typeof node !== "string" || typeof record !== "string") return undefined;
    if (!isCount(n) || typeof at !== "string") return undefined;
    rows.push({ node, record, n, at });
  }
  return { hash, source, nodes, levels, dispatched: rows };
}
