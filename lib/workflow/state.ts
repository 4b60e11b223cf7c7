/**
 * Where one request's workflow stands, read from disk: the role requests, the session's swarm
 * plan (read defensively: its schema belongs to the swarm commands) and the dispatch records of
 * the request's sub-agents. The next step (`next.ts`) is decided from this alone.
 */
import { compareText } from "../infra/ids.ts";
import { PeaksError } from "../infra/errors.ts";
import { readJsonFile } from "../infra/fs/json.ts";
import type { Project } from "../workspace/project.ts";
import { REQUEST_ROLES, type RequestDocument, type RequestRole } from "../request/file.ts";
import { readRequest } from "../request/file.ts";
import { type DispatchRecord, readRecords, recordFileNames } from "../record/record.ts";
import { isTerminal } from "../state/record.ts";

/** The parts of the swarm plan the workflow steps need. */
export interface PlanView {
  status: string;
  batchId: string | null;
  dagPath: string | null;
  subAgents: string[];
  outcome: string | null;
  /**
   * Members converge found delivered (`ok`). A member skipped with a reason delivered nothing to
   * lock: its request stays where it is and the workflow goes past it.
   */
  delivered: string[];
}

export interface WorkflowState {
  rid: string;
  requests: Partial<Record<RequestRole, RequestDocument>>;
  /** The session's plan when it is this request's; undefined otherwise. */
  plan: PlanView | undefined;
  /** This request's dispatch records, newest first. */
  records: DispatchRecord[];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function planView(raw: unknown, rid: string): PlanView | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const plan = raw as Record<string, unknown>;
  if (plan.rid !== rid || typeof plan.status !== "string") return undefined;
  const dag = plan.dag as { path?: unknown } | null | undefined;
  const convergence = plan.convergence as Record<string, unknown> | null | undefined;
  const members = Array.isArray(convergence?.members) ? convergence.members : [];
  return {
    status: plan.status,
    batchId: typeof plan.batchId === "string" ? plan.batchId : null,
    dagPath: typeof dag?.path === "string" ? dag.path : null,
    subAgents: strings(plan.subAgents),
    outcome: typeof convergence?.outcome === "string" ? convergence.outcome : null,
    delivered: members
      .filter((m) => m && m.final === "ok")
      .map((m) => String(m.role)),
  };
}

async function readPlan(project: Project, sid: string, rid: string) {
  try {
    return planView(
      await readJsonFile(project.layout.swarmPlan(sid, rid), { what: "swarm plan" }),
      rid,
    );
  } catch (error) {
    // A broken plan is reported by the swarm commands; the next step is then to plan again.
    if (error instanceof PeaksError) return undefined;
    throw error;
  }
}

async function readRidRecords(project: Project, sid: string, rid: string) {
  const prefix = `dispatch-${rid}-`;
  const names = (await recordFileNames(project, sid)).filter((n) => n.startsWith(prefix));
  const listing = await readRecords(names.map((n) => project.layout.dispatchRecord(sid, n)));
  return listing.records.map((r) => r.record)
    .filter((r) => r.requestId === rid)
    .sort((a, b) => compareText(b.createdAt, a.createdAt));
}

export async function readWorkflow(
  project: Project,
  sid: string,
  rid: string,
): Promise<WorkflowState> {
  const [docs, plan, records] = await Promise.all([
    Promise.all(REQUEST_ROLES.map((role) => readRequest(project, sid, role, rid).catch(() => {}))),
    readPlan(project, sid, rid),
    readRidRecords(project, sid, rid),
  ]);
  const requests: WorkflowState["requests"] = {};
  REQUEST_ROLES.forEach((role, i) => {
    if (docs[i]) requests[role] = docs[i];
  });
  return { rid, requests, plan, records };
}

/** How the newest sub-agent of a role, dispatched since `since`, stands. */
export type SubAgentStage =
  | { kind: "none" }
  | { kind: "working"; record: DispatchRecord }
  | { kind: "returned"; record: DispatchRecord }
  | { kind: "finalized"; record: DispatchRecord }
  | { kind: "failed"; record: DispatchRecord };

export function subAgentStage(state: WorkflowState, role: string, since: string): SubAgentStage {
  const record = state.records.find((r) => r.role === role && r.createdAt >= since);
  if (!record) return { kind: "none" };
  if (!isTerminal(record.status)) return { kind: "working", record };
  if (record.status !== "done" || record.result?.status === "blocked") {
    return { kind: "failed", record };
  }
  return record.disposed ? { kind: "finalized", record } : { kind: "returned", record };
}
