/**
 * The G9 gate as a dispatch step: headroom compression of the caller's
 * prompt when asked, then the verdict on the whole composed prompt. Single
 * and DAG dispatch share it; each says how to repeat itself with a change,
 * so refusals and suggestions are commands that run as written.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import type { IdeEntry } from "../hosts/registry.ts";
import type { Project } from "../workspace/project.ts";
import { commandLine, projectArgs } from "../infra/shell.ts";
import type { HeadroomMode } from "../budget/budget.ts";
import { governanceWords } from "../budget/flags.ts";
import { budgetData, governPrompt, type RerunChange } from "../budget/governance.ts";
import type { BudgetedPrompt, PromptBudgetStep } from "./new_record.ts";

export type BudgetFlags = Parameters<typeof governanceWords>[0];

export interface RerunBase {
  /** The same call's words, without the budget flags and `--project`. */
  words: string[];
  /** Saves what the words refer to (a copy of a stdin prompt); called only when a rerun is handed out. */
  save(): Promise<void>;
}

export function promptBudgetStep(
  ctx: Ctx,
  project: Project,
  ide: IdeEntry,
  flags: BudgetFlags,
  rerunBase: () => RerunBase,
): PromptBudgetStep {
  return async (callerPrompt, overheadBytes): Promise<BudgetedPrompt> => {
    const base = rerunBase();
    let handedOut = false;
    const rerun = (change: RerunChange) => {
      handedOut = true;
      return commandLine([
        ...base.words,
        ...governanceWords(flags, change),
        ...projectArgs(project.root),
      ]);
    };
    let outcome;
    try {
      outcome = await governPrompt({
        prompt: callerPrompt,
        extraBytes: overheadBytes,
        ide,
        contextWindow: flags["context-window"],
        force: flags.force,
        useHeadroom: flags["use-headroom"],
        headroomMode: flags["headroom-mode"] as HeadroomMode | undefined,
        project,
        env: ctx.env,
        now: ctx.now(),
        rerun,
      });
    } finally {
      if (handedOut) await base.save();
    }
    return {
      prompt: outcome.prompt,
      originalPromptSize: outcome.originalPromptSize,
      headroomCompressed: outcome.headroomCompressed,
      headroomResult: outcome.headroomResult,
      headroomRecord: outcome.headroomRecord,
      forcedAt: outcome.forcedAt,
      warnings: outcome.warnings,
      verdict: budgetData(outcome),
    };
  };
}
