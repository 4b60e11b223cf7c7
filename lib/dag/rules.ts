/**
 * The DAG without zod: a check that says yes only to a graph the schema
 * (lib/state/slice_dag.ts) takes as it is, and the reader of a batch file's
 * DAG section. `dispatch --from-dag` and `swarm slices` load zod only for a file
 * this check refuses, to word what is wrong exactly as the schema does.
 * tests/dag/rules_test.ts holds these to the schemas over thousands of
 * mutated graphs.
 */
import { isValidId } from "../infra/ids.ts";
import {
  ARTIFACTS_MAX,
  type BatchDag,
  COMPLEXITIES,
  CONTROL_OR_SPACE,
  type Dag,
  ISOLATIONS,
  LABEL_MAX,
  OWNS_MAX,
  PATH_MAX,
  ROLE_MAX,
} from "../state/slice_dag.ts";

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
