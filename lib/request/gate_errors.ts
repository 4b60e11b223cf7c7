/** The refusals of `request transition`, each with what to do next. */
import { gateError, type PeaksError } from "../infra/errors.ts";
import type { RequestMeta } from "./file.ts";
import type { LintIssue } from "./linter.ts";
import type { Problem } from "./requirements.ts";
import type { RdWorkProblem } from "./rd_work.ts";
import { ROLE_PATHS } from "./graph.ts";

interface Where {
  meta: RequestMeta;
  to: string;
  /** Project-relative path of the request. */
  shown: string;
}

const MESSAGE_LIMIT = 10;

function overrideHint(remaining: number): string {
  return remaining > 0
    ? `Only when the gap is deliberate and the user agrees: rerun with --allow-incomplete --reason "<why>" (${remaining} of 3 left in this session).`
    : "--allow-incomplete is used up for this session (3 of 3).";
}

export function invalidTransition(where: Where, allowed: string[], show: string): PeaksError {
  const { meta, to } = where;
  return gateError(
    "INVALID_TRANSITION",
    `The ${meta.role} request ${meta.rid} is ${meta.state}; it cannot go to ${to}. ` +
      `From ${meta.state} it can go to: ${allowed.join(", ") || "(nothing)"}.`,
    {
      data: {
        rid: meta.rid,
        role: meta.role,
        from: meta.state,
        to,
        allowed,
        path: ROLE_PATHS[meta.role],
      },
      nextActions: [show],
    },
  );
}

export function lintGateFailed(
  where: Where,
  errors: LintIssue[],
  problems: Problem[],
  remaining: number,
  lint: string,
): PeaksError {
  const { meta, to, shown } = where;
  const listed = errors.slice(0, MESSAGE_LIMIT).map((e) => `line ${e.line} ${e.token}`);
  if (errors.length > MESSAGE_LIMIT) listed.push(`and ${errors.length - MESSAGE_LIMIT} more`);
  return gateError(
    "LINT_GATE_FAILED",
    `${errors.length} lint error(s) in ${shown}: ${listed.join("; ")}.`,
    {
      data: {
        rid: meta.rid,
        role: meta.role,
        from: meta.state,
        to,
        path: shown,
        errors,
        lines: errors.map((e) => e.line),
        prerequisitesMissing: problems,
        allowIncompleteRemaining: remaining,
      },
      nextActions: [lint],
      instructions: [
        `Replace every listed line of ${shown} with real content, then run the transition again.`,
        ...(problems.length
          ? [`The transition also needs: ${problems.map((p) => p.message).join(" ")}`]
          : []),
        overrideHint(remaining),
      ],
    },
  );
}

export function prerequisitesMissing(
  where: Where,
  problems: Problem[],
  remaining: number,
  show: string,
): PeaksError {
  const { meta, to } = where;
  const standards = problems.some((p) => p.path === "CLAUDE.md");
  return gateError(
    "PREREQUISITES_MISSING",
    `${meta.role} ${meta.rid} cannot enter ${to} (type ${meta.type}): ${
      problems.map((p) => p.message).join(" ")
    }`,
    {
      data: {
        rid: meta.rid,
        role: meta.role,
        type: meta.type,
        from: meta.state,
        to,
        missing: problems,
        allowIncompleteRemaining: remaining,
      },
      nextActions: [show],
      instructions: [
        "Write each listed file with the exact heading lines, then run the transition again.",
        ...(standards
          ? [
            "The handoff gate (Gate G) needs CLAUDE.md's peaks block to name the stack: run `peaks standards update --apply` (or `peaks standards init --apply` when CLAUDE.md is missing).",
          ]
          : []),
        overrideHint(remaining),
      ],
    },
  );
}

export function confirmationRequired(where: Where, mode: string, command: string): PeaksError {
  const { meta, to } = where;
  return gateError(
    "CONFIRMATION_REQUIRED",
    `${meta.role} ${meta.rid} → ${to} is a user decision in ${mode} mode: ask the user, then rerun with --confirm.`,
    {
      data: { rid: meta.rid, role: meta.role, from: meta.state, to, mode },
      nextActions: [command],
      instructions: [
        `Ask the user to confirm moving the ${meta.role} request ${meta.rid} to ${to}; run the command only after they agree.`,
      ],
    },
  );
}

/**
 * RD's hand-off to QA without RD's own work on this request. The next step is RD's sub-agent
 * (`dispatch`), except while one is still open: then it is finalized first, with its return JSON.
 */
export function rdWorkMissing(
  where: Where,
  problem: RdWorkProblem,
  problems: Problem[],
  remaining: number,
  dispatch: string,
): PeaksError {
  const { meta, to } = where;
  const open = problem.kind === "rd-open";
  const failed = problem.kind === "rd-not-done";
  return gateError("RD_WORK_MISSING", `rd ${meta.rid} cannot enter ${to}: ${problem.message}`, {
    data: {
      rid: meta.rid,
      role: meta.role,
      from: meta.state,
      to,
      reason: problem.kind,
      records: problem.records,
      ...(problems.length ? { missing: problems } : {}),
      allowIncompleteRemaining: remaining,
      ...(failed ? { dispatch } : {}),
    },
    nextActions: open || failed ? [] : [dispatch],
    instructions: [
      open
        ? "Finalize each listed record when its sub-agent returns (sub-agent finalize --record <record> --outcome done --result-json '<its return JSON>'), then run the transition again."
        : failed
        ? "RD's sub-agent did not finish: tell the user; run data.dispatch only when they want RD to try again."
        : "RD implements the request in its own sub-agent: run the nextAction, review and finalize it, then run the transition again.",
      overrideHint(remaining),
    ],
  });
}
