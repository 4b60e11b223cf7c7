import { type CommandResult, defineCommand, type Input } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { writeFileAtomic } from "../../infra/fs/files.ts";
import { gateError, usageError } from "../../infra/errors.ts";
import { withLock } from "../../infra/fs/lock.ts";
import {
  QA_VERDICTS,
  readRequestText,
  renderRequest,
  type RequestMeta,
} from "../../request/file.ts";
import { peaksCommand, touchSession } from "../../session/session.ts";
import { invalidTransition } from "../../request/gate_errors.ts";
import {
  BLOCKED,
  checkMove,
  isRoleState,
  REWORK_LIMIT,
  ROLE_PATHS,
  roleStates,
} from "../../request/graph.ts";
import { appendHistory } from "../../request/history.ts";
import { nextStep, stepActions, stepData } from "../../workflow/next.ts";
import { followPhase } from "../../workflow/follow.ts";
import {
  checkRequest,
  loadRequest,
  openRequestSession,
  RID_ARG,
  roleFlag,
  sessionFlag,
} from "../../request/load.ts";
import { OVERRIDE_LIMIT } from "../../request/overrides.ts";
import { checkRework } from "../../request/rework.ts";
import {
  type Asked,
  countOverride,
  nextMeta,
  passGates,
  type Transition,
} from "../../request/transition_steps.ts";
import { isoTime } from "../../infra/ids.ts";

const STATES_HELP = `${
  Object.entries(ROLE_PATHS).map(([role, path]) => `${role}: ${path.join(" > ")}`).join("; ")
}; any state > blocked.`;

const spec = defineCommand({
  name: "request transition",
  description:
    "Moves a request along its role's state graph (one step forward, to blocked from anywhere, or from blocked " +
    "back to the state it was blocked from; after a return-to-rd verdict RD may step back from qa-handoff to " +
    "implemented and QA from verdict-issued to running, at most 3 re-tests). A forward step runs the lint gate (LINT_GATE_FAILED) and the " +
    "prerequisite gate for the request type (PREREQUISITES_MISSING, naming each file and exact heading); rd qa-handoff " +
    "also needs an rd sub-agent of the request finalized done whose return names a changed file outside .peaks/ (RD_WORK_MISSING). " +
    "--allow-incomplete --reason skips both gates, is recorded, and works 3 times per session. In assisted " +
    "and strict presence modes, prd confirmed-by-user, ui direction-locked, qa verdict-issued and txt finalized " +
    "need --confirm. QA's verdict-issued needs --verdict pass|return-to-rd|blocked.",
  args: [RID_ARG],
  flags: {
    role: roleFlag(),
    state: flag.string(`Target state. ${STATES_HELP}`, {
      placeholder: "<state>",
      required: true,
      max: 64,
    }),
    verdict: flag.enum(
      QA_VERDICTS,
      "QA's verdict; required with --role qa --state verdict-issued.",
    ),
    reason: flag.string("Why: required with --state blocked and with --allow-incomplete.", {
      placeholder: "<why>",
      max: 500,
    }),
    "allow-incomplete": flag.boolean(
      `Skip the lint and prerequisite gates (needs --reason; ${OVERRIDE_LIMIT} per session).`,
    ),
    confirm: flag.boolean("The user confirmed this transition (needed in assisted/strict modes)."),
    "session-id": sessionFlag(),
  },
  examples: [
    "peaks request transition 001-login --role prd --state confirmed-by-user --json",
    "peaks request transition 001-login --role qa --state verdict-issued --verdict pass --confirm --json",
    'peaks request transition 001-login --role rd --state blocked --reason "waiting for the API schema" --json',
  ],
  exitNotes: [
    "3  INVALID_TRANSITION, LINT_GATE_FAILED, PREREQUISITES_MISSING, RD_WORK_MISSING, CONFIRMATION_REQUIRED, ALLOW_INCOMPLETE_LIMIT, REWORK_LIMIT_REACHED",
  ],
  async run({ flags, args }, ctx) {
    const asked = checkFlags(flags);
    const session = await openRequestSession(ctx, flags["session-id"]);
    const first = await loadRequest(session, asked.role, args.rid!);
    const rid = first.doc.meta.rid;
    const t: Transition = {
      ...asked,
      ctx,
      session,
      rid,
      path: first.path,
      shown: first.shown,
      show: peaksCommand(session, ["request", "show", rid, "--role", asked.role]),
    };
    return await withLock(first.path, () => transition(t));
  },
});

type Flags = Input<typeof spec.flags>["flags"];

function checkFlags(flags: Flags): Asked {
  const { role, state: to } = flags;
  const reason = flags.reason?.trim() || undefined;
  const allowIncomplete = flags["allow-incomplete"];
  if (!isRoleState(role, to)) {
    throw usageError(
      "INVALID_FLAG_VALUE",
      `--state ${JSON.stringify(to)} is not a ${role} state; use one of ${
        roleStates(role).join(", ")
      }.`,
      { data: { flag: "state", allowed: roleStates(role) } },
    );
  }
  const issuesVerdict = role === "qa" && to === "verdict-issued";
  if (issuesVerdict && !flags.verdict) {
    throw usageError("MISSING_FLAG", "qa verdict-issued needs --verdict.", {
      data: { flag: "verdict", allowed: [...QA_VERDICTS] },
    });
  }
  if (!issuesVerdict && flags.verdict) {
    throw usageError(
      "INVALID_FLAG_VALUE",
      "--verdict only goes with --role qa --state verdict-issued.",
      { data: { flag: "verdict", allowed: [] } },
    );
  }
  if ((allowIncomplete || to === BLOCKED) && !reason) {
    throw usageError(
      "MISSING_FLAG",
      `${allowIncomplete ? "--allow-incomplete" : "--state blocked"} needs --reason <why>.`,
      { data: { flag: "reason", allowed: [] } },
    );
  }
  return {
    role,
    to,
    reason,
    allowIncomplete,
    confirm: flags.confirm,
    issuesVerdict,
    verdict: flags.verdict,
  };
}

/** Under the request's lock: re-read, check the move, pass the gates, write the new state. */
async function transition(t: Transition): Promise<CommandResult> {
  const { session, rid, role, to } = t;
  const text = await readRequestText(t.path) ?? "";
  const { meta, body } = await checkRequest(t.path, text, role, rid);
  const move = checkMove(meta, to);
  if (!move.ok) throw invalidTransition({ meta, to, shown: t.shown }, move.allowed, t.show);
  if (move.kind === "same") return await unchanged(t, meta);
  const gates = move.kind === "forward"
    ? await passGates(t, meta, text)
    : { warnings: [], lintErrors: 0, bypassed: [] };
  const rework = move.kind === "rework" ? await checkRework(session, meta, to) : undefined;
  const now = isoTime(t.ctx.now());
  const override = gates.bypassed.length ? await countOverride(t, meta, gates.bypassed, now) : null;
  const next = nextMeta(t, meta, move.kind, rework, now);
  if (rework?.round) {
    gates.warnings.push({
      code: "REWORK_ROUND",
      message: `QA re-test round ${rework.round} of ${REWORK_LIMIT}.`,
    });
  }
  const notes = [
    ...(rework ? [`rework${rework.round ? ` round ${rework.round}` : ""}`] : []),
    ...(t.issuesVerdict ? [`verdict ${t.verdict}`] : []),
    ...(t.confirm && move.kind === "forward" ? ["confirmed"] : []),
    ...(override ? [`allow-incomplete (${gates.bypassed.join(", ")})`] : []),
    ...(t.reason ? [`reason: ${t.reason}`] : []),
  ];
  const entry = `${now} ${meta.state} → ${to}${notes.length ? ` (${notes.join("; ")})` : ""}`;
  await writeFileAtomic(t.path, renderRequest(next, appendHistory(body, entry)));
  await touchSession(session.project, session.sessionId, t.ctx.now());
  const following = await nextStep(session, rid);
  await followPhase(t.ctx.env, session, following.phase, t.ctx.now());
  return {
    data: {
      ...baseData(t, meta),
      to,
      changed: true,
      ...(move.kind === "forward" ? {} : { kind: move.kind }),
      ...(next.verdict && t.issuesVerdict ? { verdict: next.verdict } : {}),
      ...(rework?.round ? { reworkRound: rework.round } : {}),
      ...(t.confirm && move.kind === "forward" ? { confirmed: true } : {}),
      ...(override ? { allowIncomplete: override } : {}),
      ...(next.blockedFrom ? { blockedFrom: next.blockedFrom } : {}),
      ...stepData(following),
    },
    warnings: gates.warnings,
    nextActions: stepActions(following),
    human: `${role} ${rid}: ${meta.state} → ${to}${override ? " (allow-incomplete)" : ""}`,
  };
}

/** Who moved where; the project root and the session are in every nextAction already. */
function baseData(t: Transition, meta: RequestMeta) {
  return { rid: t.rid, role: t.role, type: meta.type, from: meta.state };
}

/** Already there: nothing changes, unless QA tries to change a verdict already issued. */
async function unchanged(t: Transition, meta: RequestMeta): Promise<CommandResult> {
  const { rid, role, to } = t;
  if (t.issuesVerdict && meta.verdict !== t.verdict) {
    throw gateError(
      "INVALID_TRANSITION",
      `The verdict for ${rid} was already issued (${
        meta.verdict ?? "none"
      }); it cannot change to ${t.verdict}.`,
      {
        data: { rid, role, from: meta.state, to, verdict: meta.verdict ?? null },
        nextActions: [t.show],
      },
    );
  }
  const following = await nextStep(t.session, rid);
  return {
    data: {
      ...baseData(t, meta),
      to,
      changed: false,
      ...(meta.verdict ? { verdict: meta.verdict } : {}),
      ...stepData(following),
    },
    nextActions: stepActions(following),
    human: `${role} ${rid} is already ${meta.state}; nothing changed`,
  };
}

export default spec;
