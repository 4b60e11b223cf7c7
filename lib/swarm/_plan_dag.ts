/**
 * The DAG `swarm plan` writes to `sc/slice-dag.json`: one node per member,
 * its prompt pointing at the role skill (the dispatch adds the runtime
 * arguments, heartbeat, completion and policy blocks around it), its Gate-B
 * files declared as artefacts, and the edges of the chosen shape.
 */
import type { Dag, DagNode } from "../core/dag/dag.ts";
import { displayPath } from "../core/project/paths.ts";
import type { Project } from "../core/project/project.ts";
import type { RequestType } from "../core/request/file.ts";
import type { SwarmRole } from "./_plan_file.ts";
import { gateBRequirements } from "./_gate_b.ts";
import type { Shape } from "./_plan_rules.ts";
import { peaksLine } from "../core/shell.ts";

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

function rolePrompt(input: PlanDagInput, role: SwarmRole, files: string[]): string {
  const { project, sessionId, rid, type } = input;
  const peaks = (...words: string[]) =>
    peaksLine(project.root, [...words, "--session-id", sessionId]);
  const prd = peaks("request", "show", rid, "--role", "prd");
  const listed = files.map((f) => `- ${f}`).join("\n");
  const afterRd = input.shape.edges.some((e) => e.to === role);
  const common = [
    `You are the ${LABELS[role]} member of the swarm for request ${rid} (type ${type}).`,
    `Read the PRD first: ${prd}`,
  ];
  switch (role) {
    case "ui":
      return [
        ...common,
        "Follow the peaks-ui skill's rules for a dispatched sub-agent: set the design direction, do not write code.",
        `Create the UI request with ${
          peaks("request", "init", "--role", "ui", "--id", rid, "--apply")
        } and replace every placeholder in it.`,
        `Write and fill, with no placeholder left:\n${listed}`,
        'If the request has no visual surface, return status "skipped" with reason "non-frontend-request".',
      ].join("\n\n");
    case "rd-planning":
      return [
        ...common,
        "Follow the peaks-rd skill's planning step for a dispatched sub-agent: plan, do not write code.",
        `Create the RD request with ${
          peaks("request", "init", "--role", "rd", "--id", rid, "--apply")
        } and replace every placeholder in it.`,
        type === "bugfix"
          ? `Write the bug analysis with the exact lines "## Root cause" and "## Fix approach":\n${listed}`
          : `Write the technical design:\n${listed}`,
      ].join("\n\n");
    case "qa-test-cases":
      return [
        ...common,
        ...(afterRd
          ? [`RD planning ran before you: read ${peaks("request", "show", rid, "--role", "rd")}`]
          : []),
        "Follow the peaks-qa skill's test-case step for a dispatched sub-agent: write test cases, do not run them.",
        `Create the QA request with ${
          peaks("request", "init", "--role", "qa", "--id", rid, "--apply")
        } and replace every placeholder in it.`,
        `Write the test cases, each linked to a PRD acceptance item, under the exact line "## Test cases":\n${listed}`,
      ].join("\n\n");
  }
}

export function buildPlanDag(input: PlanDagInput): Dag {
  const { project, sessionId, rid, type } = input;
  const nodes: DagNode[] = input.shape.subAgents.map((role) => {
    const files = gateBRequirements(project.layout, sessionId, rid, role, type)
      .map((r) => displayPath(project.root, r.path));
    return {
      id: role,
      role,
      label: LABELS[role],
      prompt: rolePrompt(input, role, files),
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
