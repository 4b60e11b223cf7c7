/**
 * The steps of `request transition` past the flag checks: the gates of a
 * forward step (lint, prerequisites, the user's confirmation), the
 * --allow-incomplete ledger, and the request's next front matter.
 */
import type { Warning } from "../infra/errors.ts";
import { readPresence } from "../presence/presence.ts";
import { callerIdFromEnv } from "../presence/caller.ts";
import type { QaVerdict, RequestMeta, RequestRole } from "./file.ts";
import { peaksCommand, type SessionContext } from "../session/session.ts";
import {
  confirmationRequired,
  lintGateFailed,
  prerequisitesMissing,
  rdWorkMissing,
} from "./gate_errors.ts";
import { type MoveKind, needsConfirm } from "./graph.ts";
import { type LintIssue, lintText } from "./linter.ts";
import type { RdWorkProblem } from "./rd_work.ts";
import { OVERRIDE_LIMIT, readOverrides, recordOverride } from "./overrides.ts";
import { checkRequirements, type Problem } from "./requirements.ts";
import { gateRdWork, gateRequirements } from "./prerequisites.ts";
import type { checkRework } from "./rework.ts";
import type { Ctx } from "../infra/command/ctx.ts";

const CONFIRM_MODES = new Set(["assisted", "strict"]);

/** What was asked, checked before anything is read. */
export interface Asked {
  role: RequestRole;
  to: string;
  reason: string | undefined;
  allowIncomplete: boolean;
  confirm: boolean;
  /** QA's verdict-issued step, which carries --verdict. */
  issuesVerdict: boolean;
  verdict: QaVerdict | undefined;
}

export interface Transition extends Asked {
  ctx: Ctx;
  session: SessionContext;
  rid: string;
  path: string;
  shown: string;
  /** `peaks request show` for this request: the usual next action. */
  show: string;
}

export interface Gates {
  warnings: Warning[];
  lintErrors: number;
  /** The gates --allow-incomplete skipped. */
  bypassed: ("lint" | "prerequisites")[];
}

/** A forward step: the lint gate, the prerequisite gate, then the user's confirmation. */
export async function passGates(t: Transition, meta: RequestMeta, text: string): Promise<Gates> {
  const { project, sessionId } = t.session;
  const { rid, role, to } = t;
  const warnings: Warning[] = [];
  let bypassed: Gates["bypassed"] = [];
  const lint = lintText(text);
  const requirements = await gateRequirements(project, sessionId, meta, to);
  const problems = await checkRequirements(project.root, requirements);
  const work = (await gateRdWork(project, sessionId, meta, to))?.problem;
  if (lint.errors.length || problems.length || work) {
    if (!t.allowIncomplete) {
      const remaining = OVERRIDE_LIMIT -
        (await readOverrides(project, sessionId, { rid, role })).length;
      throw refusal(t, meta, { lint: lint.errors, problems, work }, remaining);
    }
    bypassed = [
      ...(lint.errors.length ? ["lint" as const] : []),
      ...(problems.length || work ? ["prerequisites" as const] : []),
    ];
  } else if (t.allowIncomplete) {
    warnings.push({
      code: "ALLOW_INCOMPLETE_UNUSED",
      message: "Every gate passed, so --allow-incomplete was not needed and was not counted.",
    });
  }
  if (needsConfirm(role, to) && !t.confirm) await requireConfirmation(t, meta);
  return { warnings, lintErrors: lint.errors.length, bypassed };
}

/**
 * The refusal of a forward step: the request's own lint first, then RD's missing work (its
 * sub-agent writes the missing files too), then the missing files.
 */
function refusal(
  t: Transition,
  meta: RequestMeta,
  found: { lint: LintIssue[]; problems: Problem[]; work: RdWorkProblem | undefined },
  remaining: number,
) {
  const where = { meta, to: t.to, shown: t.shown };
  const { rid, role } = t;
  if (found.lint.length) {
    const lint = peaksCommand(t.session, ["request", "lint", rid, "--role", role]);
    return lintGateFailed(where, found.lint, found.problems, remaining, lint);
  }
  if (found.work) {
    const dispatch = peaksCommand(t.session, ["sub-agent", "dispatch", "rd", "--request-id", rid]);
    return rdWorkMissing(where, found.work, found.problems, remaining, dispatch);
  }
  return prerequisitesMissing(where, found.problems, remaining, t.show);
}

/** In assisted and strict modes the key transitions wait for the user's --confirm. */
async function requireConfirmation(t: Transition, meta: RequestMeta): Promise<void> {
  const { project, sessionId } = t.session;
  const callerId = await callerIdFromEnv(t.ctx.env);
  const { presence } = await readPresence(project, sessionId, callerId);
  if (!presence?.mode || !CONFIRM_MODES.has(presence.mode)) return;
  const words = ["request", "transition", t.rid, "--role", t.role, "--state", t.to];
  if (t.verdict) words.push("--verdict", t.verdict);
  if (t.reason) words.push("--reason", t.reason);
  if (t.allowIncomplete) words.push("--allow-incomplete");
  words.push("--confirm");
  throw confirmationRequired(
    { meta, to: t.to, shown: t.shown },
    presence.mode,
    peaksCommand(t.session, words),
  );
}

/** Records the --allow-incomplete use in the session's ledger. */
export async function countOverride(
  t: Transition,
  meta: RequestMeta,
  bypassed: Gates["bypassed"],
  at: string,
): Promise<{ reason: string; bypassed: string[]; used: number; remaining: number }> {
  const { project, sessionId } = t.session;
  const { rid, role, to } = t;
  const counted = await recordOverride(project, sessionId, {
    at,
    rid,
    role,
    from: meta.state,
    to,
    reason: t.reason!,
    bypassed,
  }, { rid, role });
  return { reason: t.reason!, bypassed, ...counted };
}

export function nextMeta(
  t: Transition,
  meta: RequestMeta,
  kind: MoveKind,
  rework: Awaited<ReturnType<typeof checkRework>> | undefined,
  now: string,
): RequestMeta {
  const next: RequestMeta = { ...meta, state: t.to, updatedAt: now };
  if (kind === "block") {
    next.blockedFrom = meta.state;
    next.blockedReason = t.reason;
  } else {
    delete next.blockedFrom;
    delete next.blockedReason;
  }
  if (t.issuesVerdict) next.verdict = t.verdict;
  if (rework) {
    const { round: _round, ...changes } = rework;
    Object.assign(next, changes);
    if (changes.verdict === undefined && "verdict" in changes) delete next.verdict;
  }
  return next;
}
