import { defineCommand } from "../core/command/spec.ts";
import { flag } from "../core/command/flag.ts";
import { writeFileAtomic } from "../core/fs/atomic.ts";
import { gateError, usageError, type Warning } from "../core/errors.ts";
import { withLock } from "../core/fs/lock.ts";
import { readPresence } from "../core/presence/presence.ts";
import { callerIdFromEnv } from "../core/presence/caller_light.ts";
import { QA_VERDICTS, renderRequest, type RequestMeta } from "../core/request/file.ts";
import { peaksCommand, touchSession } from "../core/session/session.ts";
import {
  confirmationRequired,
  invalidTransition,
  lintGateFailed,
  prerequisitesMissing,
} from "./_gate_errors.ts";
import {
  BLOCKED,
  checkMove,
  isRoleState,
  needsConfirm,
  nextState,
  REWORK_LIMIT,
  ROLE_PATHS,
  roleStates,
} from "./_graph.ts";
import { appendHistory } from "../core/request/history.ts";
import { lintText } from "../core/request/lint.ts";
import {
  checkRequest,
  loadRequest,
  openRequestSession,
  RID_ARG,
  roleFlag,
  sessionFlag,
} from "./_load.ts";
import { OVERRIDE_LIMIT, readOverrides, recordOverride } from "./_overrides.ts";
import { checkRequirements } from "../core/request/requirements.ts";
import { requirementsFor } from "./_prerequisites.ts";
import { checkRework } from "./_rework.ts";

const CONFIRM_MODES = new Set(["assisted", "strict"]);

const STATES_HELP = `${
  Object.entries(ROLE_PATHS).map(([role, path]) => `${role}: ${path.join(" > ")}`).join("; ")
}; any state > blocked.`;

/** What the workflow usually does once a request reaches a state (prose for the model). */
const AFTER: Record<string, string> = {
  "prd:confirmed-by-user":
    "The PRD is confirmed: plan the swarm with `peaks swarm plan --rid <rid>`.",
  "rd:qa-handoff": "RD handed off: QA runs the test cases next.",
  "qa:verdict-issued":
    "Verdict recorded: pass moves on to SC/TXT; return-to-rd sends the findings back to RD.",
  "txt:finalized": "The handoff is final: report it to the user.",
};

export default defineCommand({
  name: "request transition",
  description:
    "Moves a request along its role's state graph (one step forward, to blocked from anywhere, or from blocked " +
    "back to the state it was blocked from; after a return-to-rd verdict RD may step back from qa-handoff to " +
    "implemented and QA from verdict-issued to running, at most 3 re-tests). A forward step runs the lint gate (LINT_GATE_FAILED) and the " +
    "prerequisite gate for the request type (PREREQUISITES_MISSING, naming each file and exact heading). " +
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
    "3  INVALID_TRANSITION, LINT_GATE_FAILED, PREREQUISITES_MISSING, CONFIRMATION_REQUIRED, ALLOW_INCOMPLETE_LIMIT, REWORK_LIMIT_REACHED",
  ],
  async run({ flags, args }, ctx) {
    const role = flags.role;
    const to = flags.state;
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
        {
          data: { flag: "verdict", allowed: [] },
        },
      );
    }
    if ((allowIncomplete || to === BLOCKED) && !reason) {
      throw usageError(
        "MISSING_FLAG",
        `${allowIncomplete ? "--allow-incomplete" : "--state blocked"} needs --reason <why>.`,
        { data: { flag: "reason", allowed: [] } },
      );
    }

    const session = await openRequestSession(ctx, flags["session-id"]);
    const { project, sessionId } = session;
    const first = await loadRequest(session, role, args.rid!);
    const rid = first.doc.meta.rid;
    const show = peaksCommand(session, ["request", "show", rid, "--role", role]);
    const lintCommand = peaksCommand(session, ["request", "lint", rid, "--role", role]);

    return await withLock(first.path, async () => {
      const text = await Deno.readTextFile(first.path);
      const { meta, body } = checkRequest(first.path, text, role, rid);
      const where = { meta, to, shown: first.shown };
      const move = checkMove(meta, to);
      if (!move.ok) throw invalidTransition(where, move.allowed, show);
      const base = {
        projectRoot: project.root,
        sessionId,
        rid,
        role,
        type: meta.type,
        path: first.shown,
        from: meta.state,
      };
      if (move.kind === "same") {
        if (issuesVerdict && meta.verdict !== flags.verdict) {
          throw gateError(
            "INVALID_TRANSITION",
            `The verdict for ${rid} was already issued (${
              meta.verdict ?? "none"
            }); it cannot change to ${flags.verdict}.`,
            {
              data: { rid, role, from: meta.state, to, verdict: meta.verdict ?? null },
              nextActions: [show],
            },
          );
        }
        return {
          data: { ...base, to, state: meta.state, verdict: meta.verdict ?? null, changed: false },
          nextActions: [show],
          human: `${role} ${rid} is already ${meta.state}; nothing changed`,
        };
      }

      const warnings: Warning[] = [];
      let lintErrors = 0;
      let bypassed: ("lint" | "prerequisites")[] = [];
      if (move.kind === "forward") {
        const lint = lintText(text);
        lintErrors = lint.errors.length;
        const requirements = requirementsFor(project.layout, sessionId, role, meta.type, rid, to);
        const problems = await checkRequirements(project.root, requirements);
        if (lint.errors.length || problems.length) {
          if (!allowIncomplete) {
            const remaining = OVERRIDE_LIMIT -
              (await readOverrides(project, sessionId, { rid, role }))
                .length;
            throw lint.errors.length
              ? lintGateFailed(where, lint.errors, problems, remaining, lintCommand)
              : prerequisitesMissing(where, problems, remaining, show);
          }
          bypassed = [
            ...(lint.errors.length ? ["lint" as const] : []),
            ...(problems.length ? ["prerequisites" as const] : []),
          ];
        } else if (allowIncomplete) {
          warnings.push({
            code: "ALLOW_INCOMPLETE_UNUSED",
            message: "Every gate passed, so --allow-incomplete was not needed and was not counted.",
          });
        }
        if (needsConfirm(role, to) && !flags.confirm) {
          const callerId = await callerIdFromEnv(ctx.env);
          const { presence } = await readPresence(project, sessionId, callerId);
          if (presence?.mode && CONFIRM_MODES.has(presence.mode)) {
            const words = ["request", "transition", rid, "--role", role, "--state", to];
            if (flags.verdict) words.push("--verdict", flags.verdict);
            if (reason) words.push("--reason", reason);
            if (allowIncomplete) words.push("--allow-incomplete");
            words.push("--confirm");
            throw confirmationRequired(where, presence.mode, peaksCommand(session, words));
          }
        }
      }

      const rework = move.kind === "rework" ? await checkRework(session, meta, to) : undefined;
      const now = ctx.now().toISOString();
      let override: { reason: string; bypassed: string[]; used: number; remaining: number } | null =
        null;
      if (bypassed.length) {
        const counted = await recordOverride(project, sessionId, {
          at: now,
          rid,
          role,
          from: meta.state,
          to,
          reason: reason!,
          bypassed,
        }, { rid, role });
        override = { reason: reason!, bypassed, ...counted };
      }

      const next: RequestMeta = { ...meta, state: to, updatedAt: now };
      if (move.kind === "block") {
        next.blockedFrom = meta.state;
        next.blockedReason = reason;
      } else {
        delete next.blockedFrom;
        delete next.blockedReason;
      }
      if (issuesVerdict) next.verdict = flags.verdict;
      if (rework) {
        const { round, ...changes } = rework;
        Object.assign(next, changes);
        if (changes.verdict === undefined && "verdict" in changes) delete next.verdict;
        if (round) {
          warnings.push({
            code: "REWORK_ROUND",
            message: `QA re-test round ${round} of ${REWORK_LIMIT}.`,
          });
        }
      }
      const notes = [
        ...(rework ? [`rework${rework.round ? ` round ${rework.round}` : ""}`] : []),
        ...(issuesVerdict ? [`verdict ${flags.verdict}`] : []),
        ...(flags.confirm && move.kind === "forward" ? ["confirmed"] : []),
        ...(override ? [`allow-incomplete (${bypassed.join(", ")})`] : []),
        ...(reason ? [`reason: ${reason}`] : []),
      ];
      const entry = `${now} ${meta.state} → ${to}${notes.length ? ` (${notes.join("; ")})` : ""}`;
      await writeFileAtomic(first.path, renderRequest(next, appendHistory(body, entry)));
      await touchSession(project, sessionId, ctx.now());

      const following = to === BLOCKED ? undefined : nextState(role, to);
      const after = AFTER[`${role}:${to}`];
      return {
        data: {
          ...base,
          to,
          state: to,
          verdict: next.verdict ?? null,
          changed: true,
          kind: move.kind,
          confirmed: flags.confirm,
          lintErrors,
          allowIncomplete: override,
          blockedFrom: next.blockedFrom ?? null,
          history: entry,
          instructions: after ? [after.replace("<rid>", rid)] : [],
        },
        warnings,
        nextActions: [
          issuesVerdict && flags.verdict === "return-to-rd"
            ? peaksCommand(session, [
              "request",
              "transition",
              rid,
              "--role",
              "rd",
              "--state",
              "implemented",
            ])
            : following
            ? peaksCommand(session, [
              "request",
              "transition",
              rid,
              "--role",
              role,
              "--state",
              following,
            ])
            : show,
        ],
        human: `${role} ${rid}: ${meta.state} → ${to}${override ? " (allow-incomplete)" : ""}`,
      };
    });
  },
});
