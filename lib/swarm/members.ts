/**
 * How each planned member ended: its newest record in the swarm's batch
 * (through the same progress reader the DAG scheduler uses), what it returned,
 * and whether its Gate-B files are there. A member fails when it returned
 * blocked, when its record failed, was cancelled, timed out, went stale or
 * never started, when it was never dispatched, or when a Gate-B file is
 * missing or unfinished. A member that returned skipped with a reason is
 * skipped: no Gate-B check, no degradation.
 */
import { checkRequirements } from "../request/requirements.ts";
import { type NodeProgress, pendingProgress } from "../dag/progress.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import type { MemberResult, SwarmPlan, SwarmRole } from "./plan_file.ts";
import { gateBRequirements, MISSING_NOTE } from "./gate_b.ts";
import { applyChoice } from "./plan_rules.ts";

/** Who each member waits for in the plan's shape (sequential: QA after RD). */
export function predecessorsOf(plan: SwarmPlan): Map<SwarmRole, SwarmRole[]> {
  const shape = applyChoice(plan.subAgents, plan.choice ?? "full");
  const map = new Map<SwarmRole, SwarmRole[]>(plan.subAgents.map((r) => [r, []]));
  for (const edge of shape.edges) map.get(edge.to)?.push(edge.from);
  return map;
}

/**
 * Members that can still finish: a record still running, or not dispatched
 * yet while everything it waits for is done. Converge waits for these.
 */
export function openMembers(
  plan: SwarmPlan,
  progress: Map<string, NodeProgress>,
): { running: NodeProgress[]; undispatched: SwarmRole[] } {
  const preds = predecessorsOf(plan);
  const stateOf = (role: string) => progress.get(role)?.state ?? "pending";
  const running = plan.subAgents.map((r) => progress.get(r)).filter((p): p is NodeProgress =>
    p?.state === "open"
  );
  const undispatched = plan.subAgents.filter((role) =>
    stateOf(role) === "pending" && (preds.get(role) ?? []).every((p) => stateOf(p) === "done")
  );
  return { running, undispatched };
}

function recordReasons(p: NodeProgress, preds: SwarmRole[], all: Map<string, NodeProgress>) {
  const reasons: string[] = [];
  if (p.state === "pending") {
    const failedBefore = preds.filter((r) => all.get(r)?.state !== "done");
    reasons.push(
      failedBefore.length
        ? `never dispatched: it waits for ${failedBefore.join(", ")}, which did not finish`
        : "never dispatched",
    );
    return reasons;
  }
  if (p.status !== "done") reasons.push(`record ${p.status}${p.error ? `: ${p.error}` : ""}`);
  const result = p.record?.result;
  if (result?.status === "blocked") {
    reasons.push(`returned blocked${result.blockedReason ? `: ${result.blockedReason}` : ""}`);
  }
  return reasons;
}

/**
 * A member that finished and returned `skipped` with a reason (UI on a request with no visual
 * surface, planning for a type that needs none): scored skipped, its files are not looked for.
 */
function skippedMember(p: NodeProgress): string | undefined {
  const result = p.record?.result;
  if (p.status !== "done" || result?.status !== "skipped") return undefined;
  return result.reason?.trim() || undefined;
}

export async function assessMembers(
  project: Project,
  plan: SwarmPlan,
  progress: Map<string, NodeProgress>,
  finalizedNow: ReadonlySet<string>,
): Promise<MemberResult[]> {
  const preds = predecessorsOf(plan);
  return await Promise.all(plan.subAgents.map(async (role) => {
    const p = progress.get(role) ?? pendingProgress(role);
    const skip = skippedMember(p);
    if (skip) {
      return {
        role,
        final: "skipped" as const,
        recordPath: p.recordPath ? displayPath(project.root, p.recordPath) : null,
        recordStatus: p.status,
        resultStatus: "skipped",
        reasons: [],
        artefacts: [],
        note: skip,
        finalizedAtConverge: finalizedNow.has(role),
      };
    }
    const requirements = gateBRequirements(
      project.layout,
      plan.sessionId,
      plan.rid,
      role,
      plan.type,
    );
    const problems = await checkRequirements(project.root, requirements);
    const artefacts = requirements.map((r) => {
      const path = displayPath(project.root, r.path);
      const found = problems.filter((x) => x.path === path).map((x) => x.message);
      return { path, ok: found.length === 0, problems: found };
    });
    const reasons = [
      ...recordReasons(p, preds.get(role) ?? [], progress),
      ...artefacts.flatMap((a) => a.problems.map((m) => `Gate B: ${m}`)),
    ];
    const resultStatus = p.record?.result?.status ?? null;
    if (resultStatus === "skipped") reasons.push("returned skipped without a reason");
    const final = reasons.length ? "failed" : "ok";
    return {
      role,
      final,
      recordPath: p.recordPath ? displayPath(project.root, p.recordPath) : null,
      recordStatus: p.status,
      resultStatus,
      reasons,
      artefacts,
      note: final === "failed" ? MISSING_NOTE[role] : null,
      finalizedAtConverge: finalizedNow.has(role),
    };
  }));
}
