/**
 * `dispatch --mode detached`: the same pipeline as in-process dispatch
 * (compose, prompt budget, record) with the detached prompt and no tool
 * call, then the resource budget and a supervisor that runs the vendor CLI.
 * The command answers as soon as the supervisor holds its lease.
 */
import type { CommandResult } from "../../cli/spec.ts";
import type { Ctx } from "../../core/ctx.ts";
import { runNameFor } from "../../core/detached_runs.ts";
import { PeaksError } from "../../core/errors.ts";
import { withLock } from "../../core/lock.ts";
import { displayPath } from "../../core/paths.ts";
import { callerIdFromEnv } from "../../core/presence.ts";
import { recordFileOf } from "../../core/record_names.ts";
import { commandLine } from "../../core/shell.ts";
import { chooseVendor, type Vendor, VENDORS } from "../../core/vendors.ts";
import { compactMeta } from "../artifact_rules.ts";
import { type PromptBudgetStep, writeDispatch } from "../dispatch_record.ts";
import type { Replay } from "../replay.ts";
import { budgetExceeded, checkBudget, reconciledWarning } from "./budget.ts";
import { composeDetachedPrompt, refuseHistoryBoundary } from "./prompt.ts";
import {
  failRecord,
  modeWords,
  promptTooLargeForVendor,
  rerunWords,
  vendorNotFound,
} from "./refusals.ts";
import { vendorPermissions } from "./permissions.ts";
import { startSupervisor } from "./spawn.ts";
import type { BudgetFor, DetachedInput } from "./input.ts";
import { VENDOR_CLI, vendorIde } from "./vendor_cli.ts";

export const DETACHED_ETA_SECONDS = 60;

const utf8 = (text: string) => new TextEncoder().encode(text).length;

export function detachedHint(vendor: string, rid: string): string {
  return `⏳ Spawning detached sub-agent via ${vendor}: rid=${rid} (ETA ~${DETACHED_ETA_SECONDS}s)`;
}

export async function dispatchDetached(
  ctx: Ctx,
  input: DetachedInput,
  budgetFor: BudgetFor,
): Promise<CommandResult<unknown>> {
  const { project, runtime, flags, warnings } = input;
  const root = project.root;
  const sid = runtime.sessionId;
  const rid = runtime.requestId;
  refuseHistoryBoundary(input.prompt.text, input.prompt.source);
  const preferred = VENDORS.find((v) => input.ide.id.startsWith(v));
  const choice = await chooseVendor(ctx.env, flags.vendor as Vendor | undefined, preferred);
  if (!choice.vendor) throw await vendorNotFound(ctx, input, choice.installed);
  const vendor = choice.vendor;
  if (choice.fallbackFrom) {
    warnings.push({
      code: "VENDOR_FALLBACK",
      message:
        `${choice.fallbackFrom} is not installed (not on PATH); the sub-agent runs with ${vendor} instead.`,
      requested: choice.fallbackFrom,
      vendor,
      installed: choice.installed,
    });
  }
  const replay: Replay = { ...input.replay, modeWords: modeWords(vendor, flags) };
  const max = flags["max-concurrent"];

  const early = await checkBudget(project, ctx.now(), max);
  warnings.push(...reconciledWarning(early.count.reconciled));
  if (early.over && !flags["no-throttle"]) {
    throw await budgetExceeded(
      project,
      early.count,
      max,
      await rerunWords(ctx, input, replay, ["--no-throttle"]),
    );
  }

  const cli = VENDOR_CLI[vendor];
  const permissions = await vendorPermissions(project, flags["vendor-permissions"]);
  const gate = budgetFor(vendorIde(vendor), replay);
  const capped: PromptBudgetStep = async (caller, overhead) => {
    const budgeted = await gate(caller, overhead);
    const bytes = overhead + utf8(budgeted.prompt.trim());
    if (cli.input === "argv" && flags.brief === "inline" && bytes > cli.argvCap) {
      throw await promptTooLargeForVendor(ctx, input, replay, vendor, bytes, choice.installed);
    }
    return budgeted;
  };
  const runDirOf = (file: string) => project.layout.detachedRunDir(sid, rid, runNameFor(file, rid));
  const callerId = (await callerIdFromEnv(ctx.env)) ?? null;
  const written = await writeDispatch({
    project,
    runtime,
    ide: input.ide,
    brief: flags.brief,
    callerPrompt: input.prompt.text,
    artifactMetas: input.artifactMetas,
    git: input.git,
    graphNodeId: input.graphNodeId,
    workflowId: input.workflowId,
    now: input.now,
    detached: {
      vendor,
      compose: (recordPath, file, task) =>
        composeDetachedPrompt({
          runtime,
          recordPath,
          runDir: displayPath(root, runDirOf(file)),
          vendor,
          permissions,
        }, task),
      fields: (file) => ({
        detached: {
          runDir: displayPath(root, runDirOf(file)),
          vendor,
          requestedVendor: flags.vendor ?? null,
          input: cli.input,
          timeoutMs: flags.timeout,
          owner: { sessionId: sid, callerId },
          permissions,
        },
      }),
    },
  }, capped);
  const { record, budget } = written;
  warnings.push(...budget.warnings);
  const runDir = runDirOf(recordFileOf(written.path));

  let started;
  try {
    started = await withLock(project.layout.detachedBudget, async () => {
      const check = await checkBudget(project, ctx.now(), max);
      if (check.over && !flags["no-throttle"]) return { refused: check };
      const supervisor = await startSupervisor(ctx, root, written.path, runDir);
      return { check, supervisor };
    }, { timeoutMs: 60_000 });
  } catch (error) {
    const reason = error instanceof PeaksError ? error.message : String(error);
    await failRecord(written.path, `the detached run did not start: ${reason}`, ctx.now());
    throw error;
  }
  if (!("supervisor" in started) || !started.supervisor) {
    await failRecord(
      written.path,
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
  const live = started.check.count.live.length;
  if (flags["no-throttle"]) {
    warnings.push({
      code: "THROTTLE_DISABLED",
      message: `--no-throttle: ${
        live + 1
      } detached sub-agents now run in this project (budget ${max}); each is a separate vendor process.`,
      live: live + 1,
      maxConcurrent: max,
    });
  }

  const shownRun = displayPath(root, runDir);
  const shownMetas = input.artifactMetas.map(compactMeta);
  const artifactBytes = shownMetas.length ? utf8(JSON.stringify(shownMetas)) : 0;
  const hint = detachedHint(vendor, rid);
  const watch = commandLine([
    "peaks",
    "sub-agent",
    "watch",
    "--batch",
    runtime.batchId,
    "--session-id",
    sid,
    "--interval",
    "2s",
    "--project",
    root,
  ]);
  const status = commandLine([
    "peaks",
    "sub-agent",
    "status",
    "--batch",
    runtime.batchId,
    "--session-id",
    sid,
    "--project",
    root,
  ]);
  return {
    data: {
      envelopeVersion: "2.1.0",
      role: runtime.role,
      ide: input.ide.id,
      mode: "detached",
      vendor,
      requestedVendor: flags.vendor ?? null,
      vendorPermissions: permissions,
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
        supervisorPid: started.supervisor.pid,
        input: cli.input,
        timeoutMs: flags.timeout,
        log: `${shownRun}/log.txt`,
        status: `${shownRun}/status.json`,
        exit: `${shownRun}/exit.json`,
        live: live + 1,
        maxConcurrent: max,
      },
      projectRoot: root,
      instructions: [
        `The sub-agent already runs as a separate ${vendor} process: print data.orchestratorVisibleHint once, make no tool call.`,
        `Follow it with the first nextAction; its output goes to ${shownRun}/log.txt and the supervisor sets the record's outcome.`,
        `When it has ended: git status, git diff, then peaks sub-agent finalize --record ${written.displayPath} --outcome <its outcome> to store the result and run the audit.`,
        `To stop it early: peaks sub-agent finalize --record ${written.displayPath} --outcome cancelled.`,
      ],
    },
    warnings,
    nextActions: [watch, status],
    human: [
      hint,
      `record: ${written.displayPath}`,
      `supervisor pid ${started.supervisor.pid}; log ${shownRun}/log.txt`,
    ].join("\n"),
  };
}
