/**
 * The slice DAG a plan fans out (`.peaks/_runtime/<sid>/sc/slice-dag-<rid>.json`,
 * or any file `dispatch --from-dag` reads) and the batch's DAG section: the
 * caps, the allowed values, the types, and the zod schemas that decide a
 * graph the zod-free check (lib/dag/rules.ts) does not vouch for, and word
 * what is wrong with it.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";

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
export const EXACTLY_ONE_PROMPT = "needs exactly one of prompt and promptFile";
/** An id as lib/infra/ids.ts takes it, as one regex (no "..") so the generated shape can judge it. */
export const DAG_ID = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** A role: no whitespace or control character anywhere. */
// deno-lint-ignore no-control-regex
export const DAG_ROLE = /^[^\u0000-\u001f\u007f-\u009f\s]*$/u;

/** One sub-agent of the graph (the schema below is typed by these). */
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

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const sliceDagSchemas = schemas((z: Zod) => {
  const idField = z.string().regex(DAG_ID, ID_RULE);
  const pathField = z.string().min(1).max(PATH_MAX);

  /** A node's fields; the node schema adds the one rule across fields. */
  const DagNodeFields = z.strictObject({
    id: idField,
    role: z.string().min(1).max(ROLE_MAX).regex(
      DAG_ROLE,
      "must not contain whitespace or control characters",
    ),
    prompt: z.string().min(1).optional(),
    promptFile: pathField.optional(),
    label: z.string().min(1).max(LABEL_MAX).optional(),
    foundation: z.boolean().optional(),
    complexity: z.enum(COMPLEXITIES).optional(),
    requestId: idField.optional(),
    artifacts: z.array(pathField).max(ARTIFACTS_MAX).optional(),
    isolation: z.enum(ISOLATIONS).optional(),
    owns: z.array(pathField).max(OWNS_MAX).optional(),
  });
  const DagNodeSchema: z.ZodType<DagNode> = DagNodeFields.refine(
    (node) => (node.prompt === undefined) !== (node.promptFile === undefined),
    { message: EXACTLY_ONE_PROMPT },
  );

  const DagEdgeSchema: z.ZodType<DagEdge> = z.strictObject({ from: idField, to: idField });

  const dagOf = (node: z.ZodType) =>
    z.strictObject({
      version: z.literal(1).optional(),
      rid: idField.optional(),
      batchId: idField.optional(),
      nodes: z.array(node).min(1, "needs at least one node"),
      edges: z.array(DagEdgeSchema),
    });
  const DagSchema = dagOf(DagNodeSchema) as z.ZodType<Dag>;
  /** The graph without the cross-field rule: what `deno task shapes` writes DAG_FIELDS_SHAPE from. */
  const DagFieldsSchema = dagOf(DagNodeFields);

  /** The schema `batchDagOf` (rules.ts) reads the batch's DAG section by; tests hold them together. */
  const BatchDagSchema: z.ZodType<BatchDag> = z.object({
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    source: z.string(),
    nodes: z.number().int().min(1),
    levels: z.number().int().min(1),
    dispatched: z.array(z.object({
      node: z.string(),
      record: z.string(),
      n: z.number().int().min(1),
      at: z.string(),
    })),
  });
  return { DagNodeSchema, DagEdgeSchema, DagSchema, DagFieldsSchema, BatchDagSchema };
});
