/**
 * The DAG and the batch's DAG section as zod schemas: what decides a graph
 * the zod-free check in rules.ts does not vouch for, and words what is wrong
 * with it. Loaded only then (and by `swarm plan`, which builds graphs).
 */
import { z } from "../infra/zod.ts";
import { isValidId } from "../infra/ids.ts";
import {
  ARTIFACTS_MAX,
  type BatchDag,
  COMPLEXITIES,
  CONTROL_OR_SPACE,
  type Dag,
  type DagEdge,
  type DagNode,
  ID_RULE,
  ISOLATIONS,
  LABEL_MAX,
  OWNS_MAX,
  PATH_MAX,
  ROLE_MAX,
} from "../dag/rules.ts";

const idField = z.string().refine(isValidId, ID_RULE);
const pathField = z.string().min(1).max(PATH_MAX);

export const DagNodeSchema: z.ZodType<DagNode> = z.strictObject({
  id: idField,
  role: z.string().min(1).max(ROLE_MAX).refine(
    (role) => !CONTROL_OR_SPACE.test(role),
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
}).refine(
  (node) => (node.prompt === undefined) !== (node.promptFile === undefined),
  { message: "needs exactly one of prompt and promptFile" },
);

export const DagEdgeSchema: z.ZodType<DagEdge> = z.strictObject({ from: idField, to: idField });

export const DagSchema: z.ZodType<Dag> = z.strictObject({
  version: z.literal(1).optional(),
  rid: idField.optional(),
  batchId: idField.optional(),
  nodes: z.array(DagNodeSchema).min(1, "needs at least one node"),
  edges: z.array(DagEdgeSchema),
});

/** The schema `batchDagOf` (rules.ts) reads the batch's DAG section by; tests hold them together. */
export const BatchDagSchema: z.ZodType<BatchDag> = z.object({
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
