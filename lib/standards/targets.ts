/**
 * The files `standards` writes and what it would do to each: CLAUDE.md and
 * AGENTS.md (a managed block inside the user's file) and the peaks-owned
 * files under .peaks/standards/.
 */
import { join } from "../infra/std.ts";
import type { Project } from "../workspace/project.ts";
import type { ScanResult } from "../scan/result.ts";
import { displayPath } from "../workspace/paths.ts";
import { PeaksError } from "../infra/errors.ts";
import type { ConventionSection } from "../scan/existing_system_doc.ts";
import {
  renderConventionsFile,
  renderLegacyFile,
  renderStackFile,
  STANDARDS_README,
} from "./render.ts";
import { type Action, planMarkdownTarget, planOwnedFile, type TargetPlan } from "./files.ts";
import { assertWritable } from "../workspace/writable.ts";
import { fileMode, readIfPresent, writeFileAtomic } from "../infra/fs/files.ts";

export type FileStatus =
  | "missing"
  | "existing"
  | "planned"
  | "skipped"
  | "appended"
  | "review-only";

export interface FileReport {
  path: string;
  /** Whether the file existed before this run. */
  before: "missing" | "existing";
  status: FileStatus;
  action: Action;
  reason?: string;
}

export interface FilePlan {
  path: string;
  text?: string;
  report: FileReport;
}

interface Target {
  path: string;
  owned: boolean;
  body: string | null;
  skipReason?: string;
}

export interface TargetInputs {
  scan: ScanResult;
  body: string;
  conventions: ConventionSection[] | null;
}

function targets(project: Project, inputs: TargetInputs): Target[] {
  const dir = project.layout.standardsDir;
  return [
    { path: join(project.root, "CLAUDE.md"), owned: false, body: inputs.body },
    { path: join(project.root, "AGENTS.md"), owned: false, body: inputs.body },
    { path: join(dir, "README.md"), owned: true, body: STANDARDS_README },
    { path: join(dir, "stack.md"), owned: true, body: renderStackFile(inputs.scan) },
    { path: join(dir, "legacy-constraints.md"), owned: true, body: renderLegacyFile(inputs.scan) },
    inputs.conventions
      ? {
        path: join(dir, "conventions.md"),
        owned: true,
        body: renderConventionsFile(inputs.conventions),
      }
      : {
        path: join(dir, "conventions.md"),
        owned: true,
        body: null,
        skipReason:
          `conventions are kept for legacy archetypes only (this is ${inputs.scan.archetype})`,
      },
  ];
}

function reportFor(rel: string, before: FileReport["before"], plan: TargetPlan): FileReport {
  switch (plan.kind) {
    case "write":
      return { path: rel, before, status: "planned", action: plan.action };
    case "up-to-date":
      return {
        path: rel,
        before,
        status: "existing",
        action: "none",
        reason: "already up to date",
      };
    case "kept":
      return { path: rel, before, status: "skipped", action: "none", reason: plan.reason };
    case "foreign":
      return { path: rel, before, status: "review-only", action: "none", reason: plan.reason };
  }
}

/** Plans every target; writes nothing. `init` leaves existing peaks content alone. */
export async function planTargets(
  project: Project,
  inputs: TargetInputs,
  which: "init" | "update",
): Promise<FilePlan[]> {
  const plans: FilePlan[] = [];
  for (const target of targets(project, inputs)) {
    const rel = displayPath(project.root, target.path);
    try {
      await assertWritable(project, target.path, rel);
    } catch (error) {
      if (!(error instanceof PeaksError)) throw error;
      plans.push({
        path: target.path,
        report: {
          path: rel,
          before: "existing",
          status: "review-only",
          action: "none",
          reason: error.message,
        },
      });
      continue;
    }
    const current = await readIfPresent(target.path);
    const before = current === undefined ? "missing" : "existing";
    if (target.body === null) {
      plans.push({
        path: target.path,
        report: { path: rel, before, status: "skipped", action: "none", reason: target.skipReason },
      });
      continue;
    }
    let plan = target.owned
      ? await planOwnedFile(current, target.body)
      : await planMarkdownTarget(current, target.body, which === "update");
    if (target.owned && which === "init" && plan.kind === "write" && plan.action === "refresh") {
      plan = {
        kind: "kept",
        reason: "peaks already wrote it; `peaks standards update` refreshes it",
      };
    }
    plans.push({
      path: target.path,
      text: plan.kind === "write" ? plan.text : undefined,
      report: reportFor(rel, before, plan),
    });
  }
  return plans;
}

/** Writes the planned files; their status becomes `appended` (the action says how). */
export async function applyPlans(project: Project, plans: FilePlan[]): Promise<FileReport[]> {
  const out: FileReport[] = [];
  for (const plan of plans) {
    if (plan.text === undefined) {
      out.push(plan.report);
      continue;
    }
    await assertWritable(project, plan.path, plan.report.path);
    await writeFileAtomic(plan.path, plan.text, { mode: await fileMode(plan.path) });
    out.push({ ...plan.report, status: "appended" });
  }
  return out;
}
