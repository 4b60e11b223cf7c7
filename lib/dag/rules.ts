/**
 * The DAG without zod: a check that says yes only to a graph the schema
 * (lib/state/slice_dag.ts) takes as it is, and the reader of a batch file's
 * DAG section. The check is the generated shape of the schema's fields plus
 * the one rule across a node's fields; `dispatch --from-dag` and `swarm slices`
 * load zod only for a file this check refuses, to word what is wrong exactly
 * as the schema does. tests/dag/rules_test.ts holds these to the schemas over
 * thousands of mutated graphs.
 */
import type { BatchDag, Dag } from "../state/slice_dag.ts";
import { fits } from "../infra/shape/shape.ts";
import { DAG_FIELDS_SHAPE } from "../state/shapes.ts";

type Fields = Record<string, unknown>;

function isPlainObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * True only for a graph the schema takes unchanged: the generated shape of its
 * fields, and exactly one of prompt and promptFile per node. Anything else is
 * for the schema to judge.
 */
export function isDag(value: unknown): value is Dag {
  if (!fits(DAG_FIELDS_SHAPE, value)) return false;
  for (const node of (value as { nodes: Fields[] }).nodes) {
    if ((node.prompt === undefined) === (node.promptFile === undefined)) return false;
  }
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
