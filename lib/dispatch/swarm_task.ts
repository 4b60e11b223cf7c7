/**
 * A swarm member dispatched again by role: `sub-agent dispatch ui|rd-planning|qa-test-cases
 * --request-id <rid>` without a prompt. The task is the member's node in the request's planned
 * DAG (`sc/slice-dag-<rid>.json`, written by `swarm plan`): its prompt, its declared files, and the
 * swarm's batch under the same node id, so the scheduler and `swarm converge` follow the newest
 * record of that member (a UI blocked by a login, dispatched again once the user logged in).
 */
import { SWARM_ROLES } from "../state/swarm_plan.ts";
import { readBoundedText } from "../infra/fs/files.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";

export interface SwarmMember {
  prompt: string;
  batchId: string;
  nodeId: string;
  /** The node's declared files, relative to the project root. */
  artifacts: string[];
}

export function isSwarmRole(role: string): boolean {
  return (SWARM_ROLES as readonly string[]).includes(role);
}

/**
 * The member's node, or undefined when the request has no planned DAG, the DAG has no node of
 * that role for this request, or the node's prompt lives in a file (only `swarm plan`'s own
 * nodes, which carry their prompt, are dispatched this way). A broken DAG file is refused by
 * the DAG reader, naming the file.
 */
export async function swarmMember(
  project: Project,
  sid: string,
  rid: string,
  role: string,
): Promise<SwarmMember | undefined> {
  const path = project.layout.sliceDag(sid, rid);
  const text = await readBoundedText(path).catch(() => undefined);
  if (text === undefined) return undefined;
  const { parseDag } = await import("../dag/dag.ts");
  const { dag } = await parseDag(text, displayPath(project.root, path));
  if (!dag.batchId) return undefined;
  const node = dag.nodes.find((n) =>
    n.role === role && (n.requestId ?? dag.rid) === rid && n.prompt !== undefined
  );
  if (!node) return undefined;
  return {
    prompt: node.prompt!,
    batchId: dag.batchId,
    nodeId: node.id,
    artifacts: node.artifacts ?? [],
  };
}
