/**
 * The DAG `swarm plan` writes to `sc/slice-dag-<rid>.json`: one node per member,
 * its prompt pointing at the role skill (the dispatch adds the runtime
 * arguments, heartbeat, completion and policy blocks around it), its Gate-B
 * files declared as artefacts, and the edges of the chosen shape.
 */
import type { Dag, DagNode } from "../dag/dag.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import type { RequestType } from "../request/file.ts";
import type { SwarmRole } from "./plan_file.ts";
import { gateBRequirements } from "./gate_b.ts";
import type { Shape } from "./plan_rules.ts";
import { peaksLine } from "../infra/shell.ts";
import type { Requirement } from "../request/requirements.ts";
import { deliverBlock } from "../workflow/deliverables.ts";

export interface PlanDagInput {
  project: Project;
  sessionId: string;
  rid: string;
  type: RequestType;
  batchId: string;
  shape: Shape;
}

const LABELS: Record<SwarmRole, string> = {
  ui: "UI design direction",
  "rd-planning": "RD planning",
  "qa-test-cases": "QA test cases",
};

/** The request each member creates and fills: the gate after the swarm lints it. */
const OWN_REQUEST: Record<SwarmRole, "ui" | "rd" | "qa"> = {
  ui: "ui",
  "rd-planning": "rd",
  "qa-test-cases": "qa",
};

function rolePrompt(input: PlanDagInput, role: SwarmRole, gate: Requirement[]): string {
  const { project, sessionId, rid, type } = input;
  const peaks = (...words: string[]) =>
    peaksLine(project.root, [...words, "--session-id", sessionId]);
  const own = OWN_REQUEST[role];
  const request: Requirement = {
    path: project.layout.request(sessionId, own, rid),
    headings: [],
    placeholderFree: true,
    standards: false,
  };
  const files = gate.some((r) => r.path === request.path) ? gate : [...gate, request];
  const afterRd = input.shape.edges.some((e) => e.to === role);
  return [
    `You are the ${
      LABELS[role]
    } member of the swarm for request ${rid} (type ${type}). The PRD: \`${
      peaks("request", "show", rid, "--role", "prd")
    }\`.`,
    ...(afterRd
      ? [`RD planning ran before you: \`${peaks("request", "show", rid, "--role", "rd")}\`.`]
      : []),
    `Create the ${own.toUpperCase()} request with \`${
      peaks("request", "init", "--role", own, "--id", rid, "--apply")
    }\` and replace every placeholder in it.`,
    deliverBlock(project.root, "the swarm's converge checks it", files),
    ...(role === "ui"
      ? [
        'If the request has no visual surface, return status "skipped" with reason "non-frontend-request".',
      ]
      : []),
  ].join("\n\n");
}

export function buildPlanDag(input: PlanDagInput): Dag {
  const { project, sessionId, rid, type } = input;
  const nodes: DagNode[] = input.shape.subAgents.map((role) => {
    const gate = gateBRequirements(project.layout, sessionId, rid, role, type);
    const files = gate.map((r) => displayPath(project.root, r.path));
    return {
      id: role,
      role,
      label: LABELS[role],
      prompt: rolePrompt(input, role, gate),
      requestId: rid,
      complexity: "simple",
      artifacts: files,
    };
  });
  return {
    version: 1,
    rid,
    batchId: input.batchId,
    nodes,
    edges: input.shape.edges.map((e) => ({ from: e.from, to: e.to })),
  };
}
