/**
 * `dispatch --from-dag --mode detached`: every node of a wave runs as its own
 * vendor process under its own supervisor. The scheduler stays the DAG's
 * (levels, waves, LEVEL_NOT_READY); this module adds what detached needs: the
 * vendor, the resource budget for the whole wave, each node's detached plan
 * and prompt cap, and the supervisors once the records exist.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError, type Warning } from "../infra/errors.ts";
import { withLock } from "../infra/fs/lock.ts";
import { displayPath } from "../workspace/paths.ts";
import type { IdeEntry } from "../hosts/registry.ts";
import type { Project } from "../workspace/project.ts";
import { callerIdFromEnv } from "../presence/caller.ts";
import { recordFileOf, runNameFor } from "../record/names.ts";
import { chooseVendor, type Vendor, VENDORS } from "../hosts/vendors.ts";
import type { DetachedPlan, PromptBudgetStep, WrittenDispatch } from "../dispatch/new_record.ts";
import type { RuntimeArgs } from "../dispatch/runtime_args.ts";
import { budgetExceeded, checkBudget, reconciledWarning } from "../detached/concurrency.ts";
import type { DetachedDispatchFlags } from "../detached/input.ts";

import { failRecord, modeWords } from "../detached/refusals.ts";
import { startSupervisor } from "../detached/spawn.ts";
import { VENDOR_CLI, vendorIde } from "../detached/vendor_cli.ts";
import { detachedPlan } from "../detached/plan.ts";
import { vendorPermissions } from "../detached/permissions.ts";
import { vendorTuning } from "../detached/tuning.ts";
import type { RoleTuning } from "../dispatch/role_tuning.ts";

const utf8 = (text: string) => new TextEncoder().encode(text).length;

export interface DagDetached {
  vendor: Vendor;
  /** The IDE whose context window judges each node's prompt. */
  budgetIde: IdeEntry;
  /** `--mode detached --vendor <v> …` for the next call's command line. */
  modeWords: string[];
  warnings: Warning[];
  /** A node's plan; a role choice the vendor cannot take is a warning in `warnings`. */
  plan(runtime: RuntimeArgs, tuning: RoleTuning | undefined, warnings: Warning[]): DetachedPlan;
  /** The budget step with the vendor's argument cap on top. */
  cap(step: PromptBudgetStep): PromptBudgetStep;
  /** Starts one supervisor per record, under the budget lock; returns what started. */
  start(
    written: WrittenDispatch[],
  ): Promise<Array<{ record: string; runDir: string; pid: number }>>;
}

/**
 * Chooses the vendor and checks the budget for a wave of `count` nodes;
 * refuses (VENDOR_NOT_FOUND, RESOURCE_BUDGET_EXCEEDED) before anything is written.
 */
export async function prepareDagDetached(
  ctx: Ctx,
  project: Project,
  flags: DetachedDispatchFlags,
  count: number,
  rerun: (extra: string[]) => string,
): Promise<DagDetached> {
  const warnings: Warning[] = [];
  const vendor = await chooseWaveVendor(ctx, flags, warnings);
  const max = flags["max-concurrent"];
  const words = modeWords(vendor, flags);
  const early = await checkBudget(project, ctx.now(), max);
  warnings.push(...reconciledWarning(early.count.reconciled));
  if (early.count.live.length + count > max && !flags["no-throttle"]) {
    throw await budgetExceeded(project, early.count, max, rerun([...words, "--no-throttle"]));
  }
  const callerId = (await callerIdFromEnv(ctx.env)) ?? null;
  const permissions = await vendorPermissions(project, flags["vendor-permissions"]);
  return {
    vendor,
    budgetIde: vendorIde(vendor),
    modeWords: words,
    warnings,
    plan: (runtime, roleTuning, late) => {
      const tuned = vendorTuning(vendor, roleTuning);
      late.push(...tuned.warnings);
      const tuning = tuned.passed;
      return detachedPlan(project, runtime, vendor, flags, { callerId, permissions, tuning });
    },
    cap: (step) => argvCapped(step, vendor, flags, () => rerun([...words, "--brief", "pointer"])),
    start: (written) => startWave(ctx, project, written),
  };
}

async function chooseWaveVendor(
  ctx: Ctx,
  flags: DetachedDispatchFlags,
  warnings: Warning[],
): Promise<Vendor> {
  const choice = await chooseVendor(ctx.env, flags.vendor as Vendor | undefined, undefined);
  if (!choice.vendor) {
    throw new PeaksError(
      "VENDOR_NOT_FOUND",
      `No vendor CLI for a detached run is installed: none of ${VENDORS.join(", ")} is on PATH.`,
      {
        data: {
          requested: flags.vendor ?? null,
          installed: choice.installed,
          searched: [...VENDORS],
        },
        instructions: [
          `Install one of ${VENDORS.join(", ")} so that it is on PATH, or run the DAG in-process.`,
        ],
      },
    );
  }
  if (choice.fallbackFrom) {
    warnings.push({
      code: "VENDOR_FALLBACK",
      message:
        `${choice.fallbackFrom} is not installed (not on PATH); the wave runs with ${choice.vendor} instead.`,
      requested: choice.fallbackFrom,
      vendor: choice.vendor,
    });
  }
  return choice.vendor;
}

/** The budget step with the vendor's argument cap on top (inline prompts only). */
function argvCapped(
  step: PromptBudgetStep,
  vendor: Vendor,
  flags: DetachedDispatchFlags,
  pointerRerun: () => string,
): PromptBudgetStep {
  const cli = VENDOR_CLI[vendor];
  return async (caller, overhead) => {
    const budgeted = await step(caller, overhead);
    const bytes = overhead + utf8(budgeted.prompt.trim());
    if (cli.input === "argv" && flags.brief === "inline" && bytes > cli.argvCap) {
      throw new PeaksError(
        "PROMPT_TOO_LARGE",
        `A node's prompt is ${bytes} bytes; ${vendor} takes its prompt as an argument, capped at ${cli.argvCap} bytes.`,
        {
          exit: 3,
          data: { bytes, cap: cli.argvCap, vendor },
          nextActions: [pointerRerun()],
        },
      );
    }
    return budgeted;
  };
}

/** One supervisor per record, under the budget lock; a run that cannot start fails its record. */
async function startWave(
  ctx: Ctx,
  project: Project,
  written: WrittenDispatch[],
): Promise<Array<{ record: string; runDir: string; pid: number }>> {
  const root = project.root;
  return await withLock(project.layout.detachedBudget, async () => {
    const started: Array<{ record: string; runDir: string; pid: number }> = [];
    for (const w of written) {
      const runDir = project.layout.detachedRunDir(
        w.record.sessionId,
        w.record.requestId,
        runNameFor(recordFileOf(w.path), w.record.requestId),
      );
      try {
        const supervisor = await startSupervisor(ctx, root, w.path, runDir);
        started.push({
          record: w.displayPath,
          runDir: displayPath(root, runDir),
          pid: supervisor.pid,
        });
      } catch (error) {
        const reason = error instanceof PeaksError ? error.message : String(error);
        await failRecord(w.path, `the detached run did not start: ${reason}`, ctx.now());
        throw error;
      }
    }
    return started;
  }, { timeoutMs: 60_000 });
}
