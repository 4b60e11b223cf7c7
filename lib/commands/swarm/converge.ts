import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { readChannel } from "../../batch/channel.ts";
import { type DagBatchState, readDagProgress } from "../../dag/progress.ts";
import { gateError, PeaksError, type Warning } from "../../infra/errors.ts";
import { assertId, isoTime } from "../../infra/ids.ts";
import { displayPath } from "../../workspace/paths.ts";
import { readPresence, setPresence } from "../../presence/presence.ts";
import { callerIdFromEnv } from "../../presence/caller.ts";
import { finalizeRecord } from "../../record/terminal.ts";
import { roleFileName } from "../../record/names.ts";
import { openSession, peaksCommand, type SessionContext } from "../../session/session.ts";
import {
  type Convergence,
  readSwarmPlan,
  type SwarmPlan,
  updateSwarmPlan,
} from "../../swarm/plan_file.ts";
import { convergeCommand, dispatchDagCommand, planCommand } from "../../swarm/commands.ts";
import { nextSteps } from "../../swarm/converge_next.ts";
import { degradation } from "../../swarm/gate_b.ts";
import { assessMembers, openMembers } from "../../swarm/members.ts";
import { peaksLine } from "../../infra/shell.ts";
import type { Ctx } from "../../infra/command/ctx.ts";
import { withoutEmpty } from "../../infra/command/lean.ts";

const FINALIZE_ERROR = "finalized as failed by swarm converge --finalize-open";

export default defineCommand({
  name: "swarm converge",
  description:
    "Gate B for a planned swarm: reads each member's newest record in the swarm's batch and checks its artefacts " +
    "(ui: ui/design-draft-<rid>.md and ui/requests/<rid>.md; rd-planning: rd/tech-doc-<rid>.md, or rd/bug-analysis-<rid>.md " +
    "with ## Root cause and ## Fix approach for a bugfix; qa-test-cases: qa/test-cases/<rid>.md with ## Test cases; " +
    "each present, not empty, without placeholders). Applies the degradation table (one member failed: " +
    "ui-design-missing, tech-doc-missing or qa-test-cases-missing; two: swarm-degraded-to-sequential; all: " +
    "swarm-aborted), records each member's final status in sc/swarm-plan-<rid>.json, sets the presence gate " +
    "swarm-converged and names the next command. Members still running are refused (exit 3) unless " +
    "--finalize-open, which finalizes them as failed.",
  flags: {
    rid: flag.string("The request id of the planned swarm.", {
      placeholder: "<rid>",
      required: true,
      max: 128,
    }),
    "finalize-open": flag.boolean(
      "Finalize members that are still open (or stale) as failed, then converge.",
    ),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks swarm converge --rid 001-login --json",
    "peaks swarm converge --rid 001-login --finalize-open --json",
  ],
  exitNotes: [
    "3  SWARM_MEMBERS_OPEN: members are still running or not dispatched yet (nextActions: the commands)",
    "3  SWARM_PLAN_NOT_FOUND / SWARM_NOT_DISPATCHED: plan or dispatch the swarm first",
  ],
  async run({ flags }, ctx) {
    const rid = assertId(flags.rid, "--rid");
    if (flags["session-id"] !== undefined) assertId(flags["session-id"], "--session-id");
    const session = await openSession(ctx, flags["session-id"]);
    const { project } = session;
    const plan = await planFor(session, rid);
    const warnings: Warning[] = [];
    const finalizedNow = new Set<string>();
    const state = plan.subAgents.length && plan.batchId
      ? await settleMembers(ctx, session, plan, flags["finalize-open"], finalizedNow)
      : undefined;
    const members = state ? await assessMembers(project, plan, state.progress, finalizedNow) : [];
    const failed = members.filter((m) => m.final === "failed").map((m) => m.role);
    const { outcome, handoffNotes } = plan.subAgents.length
      ? degradation(plan.subAgents, failed)
      : { outcome: "swarm-skipped" as const, handoffNotes: [plan.note ?? `swarm-skipped`] };
    if (state?.batch) warnings.push(...await missingCompletions(session, plan, members));
    await recordConvergence(session, plan, {
      at: isoTime(ctx.now()),
      outcome,
      handoffNotes,
      members,
    });
    const next = await nextSteps(session, plan, outcome, members);
    await convergedPresence(ctx, session, next.role);
    const data = withoutEmpty({
      rid,
      outcome,
      handoffNotes,
      failed,
      // Delivered members in a word; a failed one with everything converge found.
      members: members.map((m) =>
        m.final === "failed"
          ? withoutEmpty(m)
          : { role: m.role, final: m.final, ...(m.note ? { reason: m.note } : {}) }
      ),
      instructions: next.instructions,
      ...next.data,
    });
    if (outcome === "swarm-aborted") {
      throw gateError(
        "SWARM_ABORTED",
        `Every member of the swarm for ${rid} failed (${
          failed.join(", ")
        }): the user decides how to go on.`,
        { data, nextActions: next.nextActions, warnings },
      );
    }
    return {
      data,
      warnings,
      nextActions: next.nextActions,
      human: [
        `swarm ${rid}: ${outcome}${failed.length ? ` (failed: ${failed.join(", ")})` : ""}`,
        ...members.map((m) =>
          `  ${m.role} ${m.final}${m.reasons.length ? `: ${m.reasons[0]}` : ""}`
        ),
      ].join("\n"),
    };
  },
});

/** The request's own swarm plan. */
async function planFor(session: SessionContext, rid: string): Promise<SwarmPlan> {
  const plan = await readSwarmPlan(session.project, session.sessionId, rid);
  if (!plan || plan.rid !== rid) {
    throw gateError(
      "SWARM_PLAN_NOT_FOUND",
      plan
        ? `The swarm plan file of ${rid} names ${plan.rid}; plan the swarm for ${rid} again.`
        : `${rid} has no swarm plan in session ${session.sessionId}; plan the swarm for ${rid} first.`,
      { data: { rid, plannedRid: plan?.rid ?? null }, nextActions: [planCommand(session, rid)] },
    );
  }
  return plan;
}

/**
 * Where each member stands; refuses while members are open unless
 * --finalize-open, which finalizes them as failed (noted in `finalizedNow`).
 */
async function settleMembers(
  ctx: Ctx,
  session: SessionContext,
  plan: SwarmPlan,
  finalizeOpen: boolean,
  finalizedNow: Set<string>,
): Promise<DagBatchState> {
  const { project, sessionId } = session;
  const batchId = plan.batchId!;
  const read = () =>
    readDagProgress(project, sessionId, batchId, new Set(plan.subAgents), ctx.now());
  const state = await read();
  if (!state.batch && !finalizeOpen) {
    throw gateError(
      "SWARM_NOT_DISPATCHED",
      `The swarm for ${plan.rid} was planned but never dispatched (no batch ${batchId}).`,
      {
        data: { rid: plan.rid, batchId },
        nextActions: [dispatchDagCommand(session, plan.dag!.path, batchId)],
      },
    );
  }
  const open = openMembers(plan, state.progress);
  if (!finalizeOpen && (open.running.length || open.undispatched.length)) {
    throw membersOpen(session, plan, open);
  }
  if (!finalizeOpen) return state;
  for (const p of state.progress.values()) {
    if (p.state !== "open" && p.state !== "stuck") continue;
    if (!p.record || !p.recordPath) continue;
    await finalizeRecord(project, p.recordPath, {
      outcome: "failed",
      error: FINALIZE_ERROR,
      at: isoTime(ctx.now()),
    });
    finalizedNow.add(p.node);
  }
  return finalizedNow.size ? await read() : state;
}

/** The convergence goes into the plan, unless the plan changed meanwhile. */
async function recordConvergence(
  session: SessionContext,
  plan: SwarmPlan,
  convergence: Convergence,
): Promise<void> {
  const { project, sessionId } = session;
  await updateSwarmPlan(project, sessionId, plan.rid, (current) => {
    if (!current || current.rid !== plan.rid || current.batchId !== plan.batchId) {
      throw gateError(
        "SWARM_PLAN_CHANGED",
        `The swarm plan changed while converging ${plan.rid}; run converge again.`,
        { nextActions: [convergeCommand(session, plan.rid)] },
      );
    }
    const status = current.status === "swarm-skipped" ? "swarm-skipped" : "converged";
    return { value: { ...current, status, convergence }, result: undefined };
  });
}

/** Presence: the swarm converged, and the role of the next step is at work. */
async function convergedPresence(ctx: Ctx, session: SessionContext, role: string): Promise<void> {
  const { project, sessionId } = session;
  const callerId = await callerIdFromEnv(ctx.env);
  const presence = await readPresence(project, sessionId, callerId).catch(() => undefined);
  await setPresence(project, sessionId, callerId, {
    skill: presence?.presence?.skill ?? "peaks-code",
    gate: "swarm-converged",
    role,
  }, ctx.now());
}

function membersOpen(
  session: SessionContext,
  plan: SwarmPlan,
  open: ReturnType<typeof openMembers>,
): PeaksError {
  const root = session.project.root;
  const running = open.running.map((p) => ({
    role: p.node,
    status: p.status,
    recordPath: displayPath(root, p.recordPath!),
  }));
  // Marking a working member failed is the user's call, not a next step: that command is data.
  const stop = running.map((r) =>
    peaksLine(root, [
      "sub-agent",
      "finalize",
      "--record",
      r.recordPath,
      "--outcome",
      "failed",
      "--error",
      "stopped at swarm converge",
    ])
  );
  const dispatch = open.undispatched.length
    ? [dispatchDagCommand(session, plan.dag!.path, plan.batchId!)]
    : [];
  const waiting = [
    ...running.map((r) => `${r.role} (${r.status})`),
    ...open.undispatched.map((role) => `${role} (not dispatched yet)`),
  ];
  return gateError(
    "SWARM_MEMBERS_OPEN",
    `The swarm for ${plan.rid} is not finished: ${waiting.join(", ")}.`,
    {
      data: withoutEmpty({
        rid: plan.rid,
        batchId: plan.batchId,
        running: running.map((r, i) => ({ ...r, stopCommand: stop[i] })),
        undispatched: open.undispatched,
      }),
      nextActions: dispatch,
      instructions: [
        "Finalize each member when it returns: peaks sub-agent finalize --record <its record> --outcome done --result-json '<its return JSON>'; then converge again.",
        "A member that is gone is marked failed with its running[].stopCommand, or all at once with converge --finalize-open: only when the user agrees.",
      ],
    },
  );
}

/**
 * SHARE_COMPLETED_MISSING: a member that finished with artefacts without posting
 * `<role>.completed` on the channel. A skipped member has nothing to announce.
 */
async function missingCompletions(
  session: SessionContext,
  plan: SwarmPlan,
  members: { role: string; recordStatus: string | null; final: string }[],
): Promise<Warning[]> {
  let keys = new Set<string>();
  try {
    const channel = await readChannel(session.project, session.sessionId, plan.batchId!);
    keys = new Set(channel?.entries.map((e) => e.key));
  } catch (error) {
    if (!(error instanceof PeaksError)) throw error;
    return [{ code: error.code, message: error.message, path: error.data.path }];
  }
  return members.filter((m) => m.recordStatus === "done" && m.final !== "skipped")
    .filter((m) => !keys.has(`${roleFileName(m.role)}.completed`))
    .map((m) => ({
      code: "SHARE_COMPLETED_MISSING",
      message: `${m.role} finished without posting ${
        roleFileName(m.role)
      }.completed on the channel of batch ${plan.batchId}; its siblings never saw its artefacts.`,
      role: m.role,
      command: peaksCommand(session, ["sub-agent", "shared-read", "--batch", plan.batchId!]),
    }));
}
