/** The refusals of `request transition`, each with what to do next. */
import { gateError, type PeaksError } from "../infra/errors.ts";
import type { RequestMeta } from "./file.ts";
import type { LintIssue } from "./linter.ts";
import type { Problem } from "./requirements.ts";
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
