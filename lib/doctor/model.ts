/**
 * What a doctor check returns, and the wrapper that keeps one broken check
 * from taking the others down: whatever a check throws becomes a finding.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError } from "../infra/errors.ts";
import type { Project } from "../workspace/project.ts";

export type Severity = "error" | "warning" | "info";

export interface Finding {
  /** Stable kind, listed in docs/doctor.md: `skills.drift`, `records.stale`, ... */
  id: string;
  /** The check that found it. */
  check: string;
  severity: Severity;
  title: string;
  /** What is wrong and, when there is no fix command, what a person should do. */
  detail: string;
  /** A complete command that repairs it, or null when only a person can. */
  fix: string | null;
  /** The fix replaces or stops something of the user's: ask before running it. */
  confirm?: boolean;
  /** Project-relative (or `~/`) paths involved, at most MAX_PATHS. */
  paths?: string[];
}

export type CheckStatus = "ok" | "skipped" | "finding";

export interface CheckResult {
  name: string;
  status: CheckStatus;
  summary: string;
}

/** What every check gets: the project, the call's context and the moment of the call. */
export interface CheckInput {
  ctx: Ctx;
  project: Project;
  now: Date;
  /** The project holds a workspace (`.peaks/_runtime/` is a folder). */
  workspace: boolean;
}

export interface CheckOutcome {
  /** Set when the check did not apply; the reason is the summary. */
  skipped?: string;
  /** One line on what was looked at (used when there are no findings or next to them). */
  summary: string;
  findings: Omit<Finding, "check">[];
  /** What the check learned that is worth showing even when all is well. */
  facts?: Record<string, unknown>;
}

export interface Check {
  name: string;
  run(input: CheckInput): Promise<CheckOutcome>;
}

export const MAX_PATHS = 20;

/** Caps a list of paths so one finding stays small however many files are involved. */
export function somePaths(paths: string[]): string[] {
  return paths.slice(0, MAX_PATHS);
}

/** Runs one check; an exception becomes a `doctor.check-failed` finding. */
export async function runCheck(
  check: Check,
  input: CheckInput,
): Promise<{ result: CheckResult; findings: Finding[]; facts?: Record<string, unknown> }> {
  try {
    const outcome = await check.run(input);
    const findings = outcome.findings.map(({ id, ...rest }) => ({
      id,
      check: check.name,
      ...rest,
    }));
    const status: CheckStatus = findings.length ? "finding" : outcome.skipped ? "skipped" : "ok";
    return {
      result: { name: check.name, status, summary: outcome.skipped ?? outcome.summary },
      findings,
      facts: outcome.facts,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const fix = error instanceof PeaksError ? error.nextActions[0] ?? null : null;
    return {
      result: { name: check.name, status: "finding", summary: "could not run" },
      findings: [{
        id: "doctor.check-failed",
        check: check.name,
        severity: "warning",
        title: `The ${check.name} check could not run`,
        detail: message,
        fix,
      }],
    };
  }
}
