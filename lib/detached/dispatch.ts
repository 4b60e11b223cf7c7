/**
 * `dispatch --mode detached`: the same pipeline as in-process dispatch
 * (compose, prompt budget, record) with the detached prompt and no tool
 * call, then the resource budget and a supervisor that runs the vendor CLI.
 * The command answers as soon as the supervisor holds its lease.
 */
import type { CommandResult } from "../infra/command/spec.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError } from "../infra/errors.ts";
import { withLock } from "../infra/fs/lock.ts";
import { displayPath } from "../workspace/paths.ts";
import { callerIdFromEnv } from "../presence/caller.ts";
import { recordFileOf } from "../record/names.ts";
import { chooseVendor, type Vendor, VENDORS } from "../hosts/vendors.ts";
import type { VendorPermissions } from "../state/preferences.ts";
import { compactMeta } from "../record/artifacts.ts";
import {
  ENVELOPE_VERSION,
  type PromptBudgetStep,
  writeDispatch,
  type WrittenDispatch,
} from "../dispatch/new_record.ts";
import type { Replay } from "../dispatch/replay.ts";
import { budgetExceeded, checkBudget, reconciledWarning } from "./concurrency.ts";
import { refuseHistoryBoundary } from "./_history_boundary.ts";
import {
  failRecord,
  modeWords,
  promptTooLargeForVendor,
  rerunWords,
  vendorNotFound,
} from "./refusals.ts";
import { startSupervisor } from "./spawn.ts";
import type { BudgetFor, RecordInputs } from "./input.ts";
import { VENDOR_CLI, vendorIde } from "./vendor_cli.ts";
import { peaksLine } from "../infra/shell.ts";
import { detachedPlan, runDirFor } from "./plan.ts";
import { vendorPermissions } from "./permissions.ts";
import { readTuning } from "../dispatch/role_tuning.ts";
import { type PassedTuning, vendorTuning } from "./tuning.ts";

export const DETACHED_ETA_SECONDS = 60;

const utf8 = (text: string) => new TextEncoder().encode(text).length;

export function detachedHint(vendor: string, rid: string): string {
  return `⏳ Spawning detached sub-agent via ${vendor}: rid=${rid} (ETA ~${DETACHED_ETA_SECONDS}s)`;
}

export async function dispatchDetached(
  ctx: Ctx,
  input: RecordInputs,
  budgetFor: BudgetFor,
): Promise<CommandResult<unknown>> {
  const { project, flags, warnings } = input;
  refuseHistoryBoundary(input.prompt.text, input.prompt.source);
  const { vendor, installed } = await chooseDetachedVendor(ctx, input);
  const replay: Replay = { ...input.replay, modeWords: modeWords(vendor, flags) };
  const early = await checkBudget(project, ctx.now(), flags["max-concurrent"]);
  warnings.push(...reconciledWarning(early.count.reconciled));
  if (early.over && !flags["no-throttle"]) {
    throw await budgetExceeded(
      project,
      early.count,
      flags["max-concurrent"],
      await rerunWords(ctx, input, replay, ["--no-throttle"]),
    );
  }
  const gate = budgetFor(vendorIde(vendor), replay);
  const capped: PromptBudgetStep = async (caller, overhead) => {
    const budgeted = await gate(caller, overhead);
    const bytes = overhead + utf8(budgeted.prompt.trim());
    const cli = VENDOR_CLI[vendor];
    if (cli.input === "argv" && flags.brief === "inline" && bytes > cli.argvCap) {
      throw await promptTooLargeForVendor(ctx, input, replay, vendor, bytes, installed);
    }
    return budgeted;
  };
  const permissions = await vendorPermissions(project, flags["vendor-permissions"]);
  const tuned = vendorTuning(vendor, (await readTuning(project, warnings))(input.runtime.role));
  warnings.push(...tuned.warnings);
  const tuning = tuned.passed;
  const written = await writeDetachedRecord(ctx, input, { vendor, permissions, tuning }, capped);
  warnings.push(...written.budget.warnings);
  const runDir = runDirFor(input.project, input.runtime, recordFileOf(written.path));
  const started = await startUnderBudget(ctx, input, replay, written.path, runDir);
  return detachedResult(input, { vendor, permissions, tuning, written, runDir, ...started });
}

async function chooseDetachedVendor(
  ctx: Ctx,
  input: RecordInputs,
): Promise<{ vendor: Vendor; installed: Vendor[] }> {
  const preferred = VENDORS.find((v) => v === input.ide.vendor);
  const choice = await chooseVendor(ctx.env, input.flags.vendor as Vendor | undefined, preferred);
  if (!choice.vendor) throw await vendorNotFound(ctx, input, choice.installed);
  const vendor = choice.vendor;
  if (choice.fallbackFrom) {
    input.warnings.push({
      code: "VENDOR_FALLBACK",
      message:
        `${choice.fallbackFrom} is not installed (not on PATH); the sub-agent runs with ${vendor} instead.`,
      requested: choice.fallbackFrom,
      vendor,
      installed: choice.installed,
    });
  }
  return { vendor, installed: choice.installed };
}

/** The record, written through the same pipeline as in-process dispatch, with the detached prompt. */
async function writeDetachedRecord(
  ctx: Ctx,
  input: RecordInputs,
  launch: { vendor: Vendor; permissions: VendorPermissions; tuning: PassedTuning },
  step: PromptBudgetStep,
): Promise<WrittenDispatch> {
  const callerId = (await callerIdFromEnv(ctx.env)) ?? null;
  return await writeDispatch({
    project: input.project,
    runtime: input.runtime,
    ide: input.ide,
    brief: input.flags.brief,
    callerPrompt: input.prompt.text,
    artifactMetas: input.artifactMetas,
    git: input.git,
    graphNodeId: input.graphNodeId,
    workflowId: input.workflowId,
    now: input.now,
    detached: detachedPlan(input.project, input.runtime, launch.vendor, input.flags, {
      callerId,
      permissions: launch.permissions,
      tuning: launch.tuning,
    }),
  }, step);
}

interface Started {
  supervisorPid: number;
  /** Live detached runs once this one started. */
  live: number;
}

/**
 * Starts the supervisor under the budget lock, re-checking the budget there;
 * a run that cannot start leaves its record failed.
 */
async function startUnderBudget(
  ctx: Ctx,
  input: RecordInputs,
  replay: Replay,
  recordPath: string,
  runDir: string,
): Promise<Started> {
  const { project, flags } = input;
  const max = flags["max-concurrent"];
  let started;
  try {
    started = await withLock(project.layout.detachedBudget, async () => {
      const check = await checkBudget(project, ctx.now(), max);
      if (check.over && !flags["no-throttle"]) return { refused: check };
      const supervisor = await startSupervisor(ctx, project.root, recordPath, runDir);
      return { check, supervisor };
    }, { timeoutMs: 60_000 });
  } catch (error) {
    const reason = error instanceof PeaksError ? error.message : String(error);
    await failRecord(recordPath, `the detached run did not start: ${reason}`, ctx.now());
    throw error;
  }
  if (!("supervisor" in started) || !started.supervisor) {
    await failRecord(
      recordPath,
      "refused: the detached budget filled up while this dispatch was prepared",
      ctx.now(),
    );
    throw await budgetExceeded(
      project,
      started.refused.count,
      max,
      await rerunWords(ctx, input, replay, ["--no-throttle"]),
    );
  }
  const live = started.check.count.live.length + 1;
  if (flags["no-throttle"]) {
    input.warnings.push({
      code: "THROTTLE_DISABLED",
      message:
        `--no-throttle: ${live} detached sub-agents now run in this project (budget ${max}); each is a separate vendor process.`,
      live,
      maxConcurrent: max,
    });
  }
  return { supervisorPid: started.supervisor.pid, live };
}

interface Launched extends Started {
  vendor: Vendor;
  permissions: VendorPermissions;
  tuning: PassedTuning;
  written: WrittenDispatch;
  runDir: string;
}

function detachedResult(input: RecordInputs, launched: Launched): CommandResult<unknown> {
  const { project, runtime, flags } = input;
  const { vendor, written, supervisorPid } = launched;
  const { record, budget } = written;
  const root = project.root;
  const sid = runtime.sessionId;
  const shownRun = displayPath(root, launched.runDir);
  const shownMetas = input.artifactMetas.map(compactMeta);
  const artifactBytes = shownMetas.length ? utf8(JSON.stringify(shownMetas)) : 0;
  const hint = detachedHint(vendor, runtime.requestId);
  const batch = ["--batch", runtime.batchId, "--session-id", sid];
  return {
    data: {
      envelopeVersion: ENVELOPE_VERSION,
      role: runtime.role,
      ide: input.ide.id,
      mode: "detached",
      vendor,
      requestedVendor: flags.vendor ?? null,
      vendorPermissions: launched.permissions,
      originalPromptSize: record.originalPromptSize,
      promptSize: record.promptSize,
      toolCall: null,
      dispatchRecordPath: written.displayPath,
      batchId: runtime.batchId,
      dispatchedInBatch: record.dispatchedInBatch,
      headroomCompressed: budget.headroomCompressed,
      headroomResult: budget.headroomResult,
      forcedAt: budget.forcedAt,
      ...(budget.verdict ? { contextBudget: budget.verdict } : {}),
      contextImpact: { promptBytes: 0, artifactBytes, totalBytes: artifactBytes },
      artifactMetas: shownMetas,
      orchestratorVisibleHint: hint,
      artifactsPublicPaths: runtime.declaredArtifacts,
      expectedCompletionSeconds: DETACHED_ETA_SECONDS,
      detached: {
        runDir: shownRun,
        supervisorPid,
        input: VENDOR_CLI[vendor].input,
        timeoutMs: flags.timeout,
        log: `${shownRun}/log.txt`,
        status: `${shownRun}/status.json`,
        exit: `${shownRun}/exit.json`,
        live: launched.live,
        maxConcurrent: flags["max-concurrent"],
        ...launched.tuning,
      },
      projectRoot: root,
      instructions: detachedInstructions(vendor, shownRun, written.displayPath),
    },
    warnings: input.warnings,
    nextActions: [
      peaksLine(root, ["sub-agent", "watch", ...batch, "--interval", "2s"]),
      peaksLine(root, ["sub-agent", "status", ...batch]),
    ],
    human: [
      hint,
      `record: ${written.displayPath}`,
      `supervisor pid ${supervisorPid}; log ${shownRun}/log.txt`,
    ].join("\n"),
  };
}

function detachedInstructions(vendor: string, shownRun: string, record: string): string[] {
  return [
    `The sub-agent already runs as a separate ${vendor} process: print data.orchestratorVisibleHint once, make no tool call.`,
    `Follow it with the first nextAction; its output goes to ${shownRun}/log.txt and the supervisor sets the record's outcome.`,
    `When it has ended: git status, git diff, then peaks sub-agent finalize --record ${record} --outcome <its outcome> to store the result and run the audit.`,
    `To stop it early: peaks sub-agent finalize --record ${record} --outcome cancelled.`,
  ];
}
