import { type CommandResult, defineCommand } from "../../infra/command/spec.ts";
import { withOutputMode } from "../../infra/shell.ts";
import { flag } from "../../infra/command/flag.ts";
import { writeJsonAtomic } from "../../infra/fs/files.ts";
import { readBatch } from "../../batch/batch.ts";
import { type Dag, dagHash, parseDag } from "../../dag/dag.ts";
import type { Warning } from "../../infra/errors.ts";
import { assertId, isoTime, randomHex } from "../../infra/ids.ts";
import { displayPath } from "../../workspace/paths.ts";
import { PRESENCE_MODES, setPresence } from "../../presence/presence.ts";
import { openSession, type SessionContext } from "../../session/session.ts";
import {
  SWARM_CHOICES,
  type SwarmChoice,
  type SwarmPlan,
  updateSwarmPlan,
} from "../../swarm/plan_file.ts";
import { dispatchDagCommand, planCommand } from "../../swarm/commands.ts";
import { readyPrd, resolveMode, scanFrontendOnly } from "../../swarm/plan_inputs.ts";
import {
  applyChoice,
  CHOICE_SUMMARY,
  matchKeywords,
  modeDecidesAlone,
  plannedRoles,
  prdSearchText,
} from "../../swarm/plan_rules.ts";
import { buildPlanDag } from "../../swarm/plan_dag.ts";
import type { Ctx } from "../../infra/command/ctx.ts";
import { withoutEmpty } from "../../infra/command/lean.ts";
import { nextStep } from "../../workflow/next.ts";
import { PHASES } from "../../workflow/follow.ts";

/** A fresh batch id for the swarm of a request: readable, valid, unique enough. */
function swarmBatchId(rid: string): string {
  return `swarm-${rid.slice(0, 100).replace(/[._-]+$/, "")}-${randomHex(6)}`;
}

export default defineCommand({
  name: "swarm plan",
  description:
    "Decides the swarm for a request from its PRD (which must be confirmed-by-user or handed-off, else " +
    "PRD_NOT_READY): feature, refactor and bugfix get rd-planning + qa-test-cases, plus ui when the project scan " +
    "says frontendOnly or the PRD names a frontend keyword outside its non-goals; config, docs and chore skip the swarm. full-auto, 24h " +
    "and swarm modes decide alone; assisted and strict return needsChoice with the three shapes until --choice " +
    "is given (nothing is written meanwhile). Writes sc/swarm-plan-<rid>.json and sc/slice-dag-<rid>.json, sets the presence " +
    "gate swarm-fan-out, and hands out the one `sub-agent dispatch --from-dag` command that launches the swarm.",
  flags: {
    rid: flag.string("The request id whose PRD the swarm is planned from.", {
      placeholder: "<rid>",
      required: true,
      max: 128,
    }),
    mode: flag.enum(
      PRESENCE_MODES,
      "Workflow mode (default: the presence mode, then the swarmMode preference, then assisted).",
    ),
    choice: flag.enum(SWARM_CHOICES, "The fan-out shape; assisted and strict modes ask for it."),
    "emit-dag": flag.boolean("Also return the DAG written to sc/slice-dag-<rid>.json as data.dag."),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks swarm plan --rid 001-login --json",
    "peaks swarm plan --rid 001-login --mode assisted --choice backend-only --json",
  ],
  exitNotes: [
    "3  PRD_NOT_READY: the PRD request is missing or not confirmed (nextActions: the next step)",
  ],
  async run({ flags }, ctx) {
    const rid = assertId(flags.rid, "--rid");
    if (flags["session-id"] !== undefined) assertId(flags["session-id"], "--session-id");
    const session = await openSession(ctx, flags["session-id"]);
    const prd = await readyPrd(session, rid);
    const warnings: Warning[] = [];
    const [mode, frontendOnly] = await Promise.all([
      resolveMode(ctx, session, flags.mode, warnings),
      scanFrontendOnly(session, warnings),
    ]);
    const matchedKeywords = matchKeywords(prdSearchText(prd.body));
    const type = prd.meta.type;
    const planned = plannedRoles(type, frontendOnly.value || matchedKeywords.length > 0);
    const signals: Signals = {
      rid,
      type,
      mode: mode.mode,
      modeSource: mode.source,
      frontendOnly: frontendOnly.value,
      frontendOnlySource: frontendOnly.source,
      frontendKeywordHit: matchedKeywords.length > 0,
      matchedKeywords,
    };
    const choice: SwarmChoice | undefined = planned === undefined
      ? undefined
      : flags.choice ?? (modeDecidesAlone(mode.mode) ? aloneChoice(planned) : undefined);
    if (planned !== undefined && choice === undefined) {
      const modeWords = mode.source === "flag" ? ["--mode", mode.mode] : [];
      return needsChoice(ctx, session, rid, planned, signals, modeWords, warnings);
    }
    const chosen = flags.choice !== undefined;
    const shape = planned && choice ? applyChoice(planned, choice, { chosen }) : undefined;
    const written = await writePlan(ctx, session, { signals, choice, shape });
    if (written.replanned) warnings.push(written.replanned);
    if (shape) {
      await setPresence(session.project, session.sessionId, mode.callerId, {
        skill: mode.presence?.skill ?? "peaks-code",
        ...PHASES.swarm,
      }, ctx.now());
    }
    return await plannedResult(session, signals, written, {
      emitDag: flags["emit-dag"],
      warnings,
    });
  },
});

/** What the plan is decided from, recorded in it. */
type Signals = Pick<
  SwarmPlan,
  | "rid"
  | "type"
  | "mode"
  | "modeSource"
  | "frontendOnly"
  | "frontendOnlySource"
  | "frontendKeywordHit"
  | "matchedKeywords"
>;

interface Decided {
  signals: Signals;
  choice: SwarmChoice | undefined;
  shape: ReturnType<typeof applyChoice> | undefined;
}

interface WrittenPlan {
  plan: SwarmPlan;
  dag: Dag | undefined;
  planPath: string;
  dagPath: string;
  replanned: Warning | undefined;
}

/**
 * Under the plan's lock: an identical plan that has not converged keeps its
 * batch (a repeated call continues the same fan-out); then the DAG is
 * written, then the plan.
 */
async function writePlan(
  ctx: Ctx,
  session: SessionContext,
  decided: Decided,
): Promise<WrittenPlan> {
  const { project, sessionId } = session;
  const { signals, choice, shape } = decided;
  const { rid, type } = signals;
  const planPath = displayPath(project.root, project.layout.swarmPlan(sessionId, rid));
  const dagFile = project.layout.sliceDag(sessionId, rid);
  const dagPath = displayPath(project.root, dagFile);
  const draftDag = shape
    ? buildPlanDag({ project, sessionId, rid, type, batchId: "pending", shape })
    : undefined;
  const hash = draftDag ? await dagHash(draftDag) : undefined;
  const decidedAt = isoTime(ctx.now());
  const { plan, dag, previousBatch } = await updateSwarmPlan(
    project,
    sessionId,
    rid,
    async (current) => {
      const same = current?.status === "planned" && current.rid === rid &&
        current.dag?.sha256 === hash && current.batchId;
      const batchId = shape ? (same ? current!.batchId! : swarmBatchId(rid)) : null;
      const dag = draftDag && batchId ? { ...draftDag, batchId } : undefined;
      if (dag) {
        // Checked as --from-dag will read it, so a plan never hands out a DAG dispatch would refuse.
        await parseDag(JSON.stringify(dag), dagPath);
        await writeJsonAtomic(dagFile, dag);
      }
      const plan: SwarmPlan = {
        version: 1,
        sessionId,
        ...signals,
        status: shape ? "planned" : "swarm-skipped",
        note: shape ? null : `swarm-skipped: type=${type}`,
        choice: choice ?? null,
        subAgents: shape?.subAgents ?? [],
        batchId,
        dag: shape ? { path: dagPath, sha256: hash! } : null,
        decidedAt,
        convergence: null,
      };
      const previousBatch = current?.batchId && current.batchId !== batchId
        ? current.batchId
        : null;
      return { value: plan, result: { plan, dag, previousBatch } };
    },
  );
  let replanned: Warning | undefined;
  if (previousBatch && await readBatch(project, sessionId, previousBatch).catch(() => true)) {
    replanned = {
      code: "SWARM_REPLANNED",
      message:
        `The previous plan's batch ${previousBatch} is left as it is; the new plan goes out in batch ${
          plan.batchId ?? "none"
        }.`,
      batchId: previousBatch,
    };
  }
  return { plan, dag, planPath, dagPath, replanned };
}

/** The answer once the plan is written: the one command that launches the swarm, or the RD step. */
async function plannedResult(
  session: SessionContext,
  signals: Signals,
  written: WrittenPlan,
  extra: { emitDag: boolean; warnings: Warning[] },
): Promise<CommandResult> {
  const { plan, dag } = written;
  const { rid, type } = signals;
  const fanOut = plan.status === "planned";
  // A skipped swarm goes straight on: the RD request is next (converge would only note the skip).
  const next = fanOut
    ? { command: dispatchDagCommand(session, written.dagPath, plan.batchId!) }
    : await nextStep(session, rid);
  return {
    data: withoutEmpty({
      ...signals,
      choice: plan.choice,
      status: plan.status,
      note: plan.note,
      subAgents: plan.subAgents,
      batchId: plan.batchId,
      ...(extra.emitDag && dag ? { dag } : {}),
    }),
    warnings: extra.warnings,
    nextActions: next.command ? [next.command] : [],
    human: fanOut
      ? `swarm for ${rid}: ${
        plan.subAgents.join(", ")
      } (${plan.choice}, mode ${signals.mode}) in batch ${plan.batchId}`
      : `swarm skipped for ${rid}: type=${type}`,
  };
}

function needsChoice(
  ctx: Ctx,
  session: SessionContext,
  rid: string,
  planned: ReturnType<typeof plannedRoles> & object,
  signals: Record<string, unknown>,
  modeWords: string[],
  warnings: Warning[],
) {
  const options = SWARM_CHOICES.map((choice) => {
    const shape = applyChoice(planned, choice, { chosen: true });
    return {
      choice,
      summary: CHOICE_SUMMARY[choice],
      subAgents: shape.subAgents,
      command: withOutputMode(
        planCommand(session, rid, [...modeWords, "--choice", choice]),
        ctx.global,
      ),
    };
  });
  return {
    data: {
      ...signals,
      needsChoice: true,
      options,
      instructions: [
        `Mode ${signals.mode} lets the user choose: ask them to pick one of data.options, then run its command (nothing was written yet).`,
      ],
    },
    warnings,
    // The user decides: no command runs before they chose.
    nextActions: [],
    human: [
      `choose the swarm shape for ${rid} (mode ${signals.mode}):`,
      ...options.map((o) => `  ${o.choice}: ${o.summary}\n    ${o.command}`),
    ].join("\n"),
  };
}

/** What a mode that decides alone picks: every planned member in parallel, named for what it is. */
function aloneChoice(planned: readonly string[]): SwarmChoice {
  return planned.includes("ui") ? "full" : "backend-only";
}
