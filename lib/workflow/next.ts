/**
 * The workflow's next step for a request, decided from where it stands on disk (`state.ts`):
 * PRD → swarm → UI lock → RD (spec, implementation by a sub-agent, hand-off) → QA (run by a
 * sub-agent, verdict) with the repair loop → SC → TXT. The commands the orchestrator runs hand
 * this out as their nextAction, so running the first nextAction walks the workflow in order; a
 * step that waits for a sub-agent or the user has no command. `needs` lists what the command's
 * gate still misses, so the caller produces it first instead of learning it from a refusal.
 */
import type { Project } from "../workspace/project.ts";
import { readBoundedText } from "../infra/fs/files.ts";
import { displayPath } from "../workspace/paths.ts";
import { peaksCommand, type SessionContext } from "../session/session.ts";
import type { RequestDocument, RequestRole } from "../request/file.ts";
import { gateRequirements } from "../request/prerequisites.ts";
import { checkRequirements } from "../request/requirements.ts";
import { lintText } from "../request/linter.ts";
import { isClosed, readClosure } from "../request/close.ts";
import { readWorkflow, subAgentStage, type WorkflowState } from "./state.ts";
import { type Phase, PHASES } from "./follow.ts";
import { currentSliceRun, isSliceRecord, pendingSlicePlan, type SliceRun } from "./slices.ts";

export { type Phase, PHASES };

/** Something a gate checks and does not find yet. */
export interface Need {
  path: string;
  /** Exact lines the file must contain. */
  lines?: string[];
  problem: string;
}

export interface NextStep {
  phase: Phase;
  /** The command to run next; absent while a sub-agent or the user has the next move. */
  command?: string;
  needs?: Need[];
  /** Without a command: who has the next move. */
  waitingFor?: string;
}

interface Ctx {
  session: SessionContext;
  state: WorkflowState;
}

const command = (c: Ctx, words: string[]) => peaksCommand(c.session, words);

function transition(c: Ctx, role: RequestRole, state: string, extra: string[] = []): string {
  return command(c, [
    "request",
    "transition",
    c.state.rid,
    "--role",
    role,
    "--state",
    state,
    ...extra,
  ]);
}

/** A transition with what its lint and prerequisite gates still miss. */
async function step(
  c: Ctx,
  doc: RequestDocument,
  to: string,
  extra: string[] = [],
): Promise<NextStep> {
  const { project, sessionId } = c.session;
  const phase = PHASES[doc.meta.role];
  const needs: Need[] = [];
  const path = project.layout.request(sessionId, doc.meta.role, doc.meta.rid);
  const text = (await readBoundedText(path).catch(() => undefined)) ?? "";
  const lint = lintText(text).errors.length;
  if (lint) {
    needs.push({
      path: displayPath(project.root, path),
      problem: `${lint} placeholder(s) or unfinished line(s) left`,
    });
  }
  const problems = await checkRequirements(
    project.root,
    await gateRequirements(project, sessionId, doc.meta, to),
  );
  for (const p of problems) {
    needs.push({
      path: p.path,
      ...(p.headings.length ? { lines: p.headings } : {}),
      problem: p.kind,
    });
  }
  return {
    phase,
    command: transition(c, doc.meta.role, to, extra),
    ...(needs.length ? { needs } : {}),
  };
}

function dispatch(c: Ctx, role: "rd" | "qa" | "txt"): NextStep {
  return {
    phase: PHASES[role],
    command: command(c, ["sub-agent", "dispatch", role, "--request-id", c.state.rid]),
  };
}

function init(c: Ctx, role: RequestRole): NextStep {
  return {
    phase: PHASES[role],
    command: command(c, ["request", "init", "--role", role, "--id", c.state.rid, "--apply"]),
  };
}

function waiting(phase: Phase, waitingFor: string): NextStep {
  return { phase, waitingFor };
}

/** The next step of the request's workflow. */
export async function nextStep(session: SessionContext, rid: string): Promise<NextStep> {
  const [state, closure] = await Promise.all([
    readWorkflow(session.project, session.sessionId, rid),
    readClosure(session.project, session.sessionId, rid),
  ]);
  // A request the user dropped has no next step, wherever it stood.
  if (closure?.decision === "abandoned") {
    return waiting(PHASES.done, "nobody: the user abandoned the request");
  }
  return await fromPrd({ session, state });
}

async function fromPrd(c: Ctx): Promise<NextStep> {
  const prd = c.state.requests.prd;
  if (!prd) {
    // Requests made without a PRD (by hand, or before peaks kept one) go on from RD's.
    if (c.state.requests.rd) return await fromRd(c);
    return waiting(PHASES.prd, "the PRD: create it with peaks request init --role prd");
  }
  switch (prd.meta.state) {
    case "draft":
      return await step(c, prd, "confirmed-by-user");
    case "confirmed-by-user":
      return await step(c, prd, "handed-off");
    case "handed-off":
      return await fromSwarm(c);
    default:
      return waiting(PHASES.prd, "the user: the PRD is blocked");
  }
}

async function fromSwarm(c: Ctx): Promise<NextStep> {
  const { plan, rid } = c.state;
  if (!plan) {
    // An RD request already there means the swarm's part is behind the request (another session).
    if (c.state.requests.rd) return await fromRd(c);
    return { phase: PHASES.swarm, command: command(c, ["swarm", "plan", "--rid", rid]) };
  }
  if (plan.status === "planned") return swarmMembers(c);
  if (plan.outcome === "swarm-aborted" && !c.state.requests.rd) {
    return waiting(PHASES.swarm, "the user: every member of the swarm failed");
  }
  const ui = c.state.requests.ui;
  if (plan.delivered.includes("ui") && ui && ui.meta.state === "draft") {
    return await step(c, ui, "direction-locked");
  }
  if (plan.delivered.includes("ui") && ui?.meta.state === "direction-locked") {
    return await step(c, ui, "handed-off");
  }
  return await fromRd(c);
}

/** The swarm's members: send them, wait for them, then converge. */
function swarmMembers(c: Ctx): NextStep {
  const { plan, records, rid } = c.state;
  const members = records.filter((r) => r.batchId === plan!.batchId);
  const newest = new Map<string, (typeof members)[number]>();
  for (const r of members) {
    if (!newest.has(r.graphNodeId ?? r.role)) newest.set(r.graphNodeId ?? r.role, r);
  }
  const dispatchAgain = command(c, [
    "sub-agent",
    "dispatch",
    "--from-dag",
    plan!.dagPath ?? "",
    "--batch-id",
    plan!.batchId ?? "",
  ]);
  if (newest.size === 0) return { phase: PHASES.swarm, command: dispatchAgain };
  const open = [...newest.values()].filter((r) => !r.disposed);
  if (open.length) {
    return waiting(PHASES.swarm, `the swarm: finalize ${open.map((r) => r.role).join(", ")}`);
  }
  const done = [...newest.values()].every((r) => r.status === "done");
  if (done && newest.size < plan!.subAgents.length) {
    return { phase: PHASES.swarm, command: dispatchAgain };
  }
  return { phase: PHASES.swarm, command: command(c, ["swarm", "converge", "--rid", rid]) };
}

async function fromRd(c: Ctx): Promise<NextStep> {
  const rd = c.state.requests.rd;
  if (!rd) return init(c, "rd");
  switch (rd.meta.state) {
    case "draft":
      return await step(c, rd, "spec-locked");
    case "spec-locked":
      return await implementation(c, rd, "implemented");
    case "implemented": {
      const qa = c.state.requests.qa;
      const rework = qa?.meta.state === "verdict-issued" && qa.meta.verdict === "return-to-rd";
      return rework ? await implementation(c, rd, "qa-handoff") : await step(c, rd, "qa-handoff");
    }
    case "qa-handoff":
      return await fromQa(c);
    default:
      return waiting(PHASES.rd, "the user: the RD request is blocked");
  }
}

/**
 * RD's sub-agent implements: dispatch it, wait for it, then move the RD request. When RD planning
 * sliced the work, the slices go first (each merged back at its finalize), then one RD sub-agent
 * reviews the merged change as a whole and writes the code review.
 */
async function implementation(c: Ctx, rd: RequestDocument, to: string): Promise<NextStep> {
  const { project, sessionId } = c.session;
  const { rid, records } = c.state;
  const slices = await currentSliceRun(project, sessionId, rid, records, rd.meta.updatedAt);
  if (slices && !slices.complete) return sliceStep(c, slices);
  const since = slices?.lastAt ?? rd.meta.updatedAt;
  const own = { ...c.state, records: records.filter((r) => !isSliceRecord(r, rid)) };
  const stage = subAgentStage(own, "rd", since);
  switch (stage.kind) {
    case "none":
      // RD planning sliced the work: the slices fan out first (`swarm slices` hands out the call).
      if (!slices && await pendingSlicePlan(project, sessionId, rid, new Date())) {
        return { phase: PHASES.rd, command: command(c, ["swarm", "slices", "--rid", rid]) };
      }
      return dispatch(c, "rd");
    case "finalized":
      return await step(c, rd, to);
    case "failed":
      return waiting(PHASES.rd, "the user: the RD sub-agent failed or was blocked");
    default:
      return waiting(PHASES.rd, "the RD sub-agent: finalize it when it returns");
  }
}

/** The slices still out: wait for them, let the user decide a failed one, or send the next level. */
function sliceStep(c: Ctx, slices: SliceRun): NextStep {
  if (slices.open.length) {
    return waiting(
      PHASES.rd,
      `the RD slices: finalize ${slices.open.join(", ")} as each returns (merged in DAG order)`,
    );
  }
  if (slices.failed.length) {
    return waiting(
      PHASES.rd,
      `the user: the RD slice(s) ${
        slices.failed.join(", ")
      } failed or conflict (peaks sub-agent list)`,
    );
  }
  return {
    phase: PHASES.rd,
    command: command(c, [
      "sub-agent",
      "dispatch",
      "--from-dag",
      slices.source,
      "--batch-id",
      slices.batchId,
      "--request-id",
      c.state.rid,
    ]),
  };
}

async function fromQa(c: Ctx): Promise<NextStep> {
  const qa = c.state.requests.qa;
  if (!qa) return init(c, "qa");
  switch (qa.meta.state) {
    case "draft":
      return await step(c, qa, "running");
    case "running":
      return await testRun(c, qa);
    case "verdict-issued":
      return await afterVerdict(c, qa);
    default:
      return waiting(PHASES.qa, "the user: the QA request is blocked");
  }
}

async function testRun(c: Ctx, qa: RequestDocument): Promise<NextStep> {
  const stage = subAgentStage(c.state, "qa", qa.meta.updatedAt);
  if (stage.kind === "none") return dispatch(c, "qa");
  if (stage.kind === "failed") {
    return waiting(PHASES.qa, "the user: the QA sub-agent failed or was blocked");
  }
  if (stage.kind !== "finalized") {
    return waiting(PHASES.qa, "the QA sub-agent: finalize it when it returns");
  }
  const verdict = stage.record.result?.verdict;
  if (verdict !== "pass" && verdict !== "return-to-rd" && verdict !== "blocked") {
    return waiting(PHASES.qa, "you: QA returned no verdict; read its report and decide");
  }
  return await step(c, qa, "verdict-issued", ["--verdict", verdict]);
}

async function afterVerdict(c: Ctx, qa: RequestDocument): Promise<NextStep> {
  if (qa.meta.verdict === "pass") return await fromSc(c);
  if (qa.meta.verdict !== "return-to-rd") return waiting(PHASES.qa, "the user: QA is blocked");
  const rd = c.state.requests.rd;
  if (rd?.meta.state === "qa-handoff" && rd.meta.updatedAt <= qa.meta.updatedAt) {
    return { phase: PHASES.rd, command: transition(c, "rd", "implemented") };
  }
  if (rd?.meta.state === "qa-handoff") {
    return { phase: PHASES.qa, command: transition(c, "qa", "running") };
  }
  return await fromRd(c);
}

async function fromSc(c: Ctx): Promise<NextStep> {
  const sc = c.state.requests.sc;
  if (!sc) return init(c, "sc");
  const after: Record<string, string> = {
    draft: "impact-recorded",
    "impact-recorded": "boundary-recorded",
    "boundary-recorded": "handed-off",
  };
  if (after[sc.meta.state]) return await step(c, sc, after[sc.meta.state]);
  if (sc.meta.state === "handed-off") return await fromTxt(c);
  return waiting(PHASES.sc, "the user: the SC request is blocked");
}

async function fromTxt(c: Ctx): Promise<NextStep> {
  const txt = c.state.requests.txt;
  if (txt?.meta.state === "finalized") {
    if (await isClosed(c.session.project, c.session.sessionId, c.state.rid)) {
      return waiting(PHASES.done, "nobody: the request is closed");
    }
    return { phase: PHASES.done, command: command(c, ["request", "close", c.state.rid]) };
  }
  if (txt && txt.meta.state !== "draft") return waiting(PHASES.txt, "the user: TXT is blocked");
  const sc = c.state.requests.sc!;
  const stage = subAgentStage(c.state, "txt", sc.meta.updatedAt);
  switch (stage.kind) {
    case "none":
      return dispatch(c, "txt");
    case "finalized":
      return txt ? await step(c, txt, "finalized") : init(c, "txt");
    case "failed":
      return waiting(PHASES.txt, "the user: the TXT sub-agent failed or was blocked");
    default:
      return waiting(PHASES.txt, "the TXT sub-agent: finalize it when it returns");
  }
}

/** The next step as nextActions (none while someone else has the move). */
export function stepActions(next: NextStep): string[] {
  return next.command ? [next.command] : [];
}

/** The next step's facts for an envelope's data: what its gate misses, or who has the move. */
export function stepData(next: NextStep): Record<string, unknown> {
  if (next.needs) return { needs: next.needs };
  return next.waitingFor ? { waitingFor: next.waitingFor } : {};
}

export type { Project };
