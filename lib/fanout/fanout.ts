/**
 * `sub-agent dispatch --from-dag <file>`: a scheduler over dispatch records.
 * Each call reads where the batch stands, then either refuses (a level still
 * running, a failed node, another graph under this batch id) or sends the
 * next wave through the single-dispatch pipeline: compose, prompt budget,
 * record, tool call. All records of a wave join the batch under one lock.
 */
import type { CommandResult } from "../infra/command/spec.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { DAG_MAX_BYTES, type DagAnalysis, dagHash, parseDag } from "../dag/dag.ts";
import { type NodeProgress, readDagProgress } from "../dag/progress.ts";
import { usageError, type Warning } from "../infra/errors.ts";
import { readGitHead } from "../infra/git.ts";
import { detectIde } from "../hosts/registry.ts";
import { newUuid, optionalId } from "../infra/ids.ts";
import { displayPath } from "../workspace/paths.ts";
import { guardFlagPath, type Project } from "../workspace/project.ts";
import { openSession } from "../session/session.ts";
import { governanceWords } from "../budget/flags.ts";
import {
  batchConflict,
  dagBlocked,
  dagIdeNotSupported,
  dagTooLargeFile,
  levelNotReady,
} from "./_refusals.ts";
import { completeResult, dispatchedResult, drainedResult } from "./_result.ts";
import { decideNext, type Decision } from "./_schedule.ts";
import { commandLine, projectArgs } from "../infra/shell.ts";
import { installedVendors } from "../hosts/vendors.ts";
import type { DagDetached } from "./_detached.ts";
import { prepareWave, writeWave } from "./_wave.ts";
import { firstWaveOnce, refuseSecondFanOut } from "./_duplicate.ts";
import { type DagCall, dagCallWords, type DagInput, refuseSingleFlags } from "./_call.ts";
import { planWaveSlices } from "./_slices.ts";

async function readDagFile(
  ctx: Ctx,
  project: Project,
  raw: string,
): Promise<{ analysis: DagAnalysis; shown: string }> {
  const path = await guardFlagPath(ctx, project, raw, { flag: "from-dag", mustExist: true });
  const shown = displayPath(project.root, path);
  const info = await Deno.stat(path);
  if (!info.isFile) {
    throw usageError("INVALID_FLAG_VALUE", `--from-dag ${shown} is not a regular file.`, {
      data: { flag: "from-dag" },
    });
  }
  if (info.size > DAG_MAX_BYTES) throw dagTooLargeFile(shown, info.size);
  return { analysis: await parseDag(await Deno.readTextFile(path), shown), shown };
}

export async function dispatchFromDag(input: DagInput, ctx: Ctx): Promise<CommandResult> {
  const call = await openDagCall(input, ctx);
  const next = await nextWave(ctx, call);
  if (next.kind !== "dispatch") return next.result;
  const { flags, session, batchId } = call;
  const root = session.project.root;
  const warnings: Warning[] = [];
  // Detached: the vendor and the resource budget for the whole wave, decided before any write.
  let detached: DagDetached | undefined;
  if (flags.mode === "detached") {
    // Loaded only here: the supervisor's run files and their schemas are for detached waves.
    const { prepareDagDetached } = await import("./_detached.ts");
    detached = await prepareDagDetached(
      ctx,
      session.project,
      flags,
      next.decision.nodes.length,
      (extra) =>
        commandLine([...call.callWords, ...governanceWords(flags), ...extra, ...projectArgs(root)]),
    );
    warnings.push(...detached.warnings);
  } else if (call.detected.source === "assumed") warnings.push(IDE_ASSUMED);
  const now = ctx.now();
  // Isolated slices: the host's own worktrees, or peaks' (created with the records, under one lock).
  const slices = await planWaveSlices(ctx, call, next.decision.nodes, {
    detached: detached !== undefined,
    progress: next.progress,
  });
  if (slices) warnings.push(...slices.warnings);
  const wave = await prepareWave(ctx, call, next.decision.nodes, detached, now, slices?.plan);
  for (const found of wave.surroundings) warnings.push(...found.warnings);
  warnings.push(...wave.warnings);
  const unique = new Map(warnings.map((w) => [`${w.code}:${w.message}`, w]));
  const records = () => writeWave(call, wave.prepared, next.decision.nodes, now, next.seen);
  const write = () => slices ? slices.write(records) : records();
  // A new batch: concurrent calls for the same graph take turns, and only the first sends it.
  const written = next.fresh ? await firstWaveOnce(ctx, call, write) : await write();
  const runs = detached ? await detached.start(written) : undefined;
  for (const w of written) {
    for (const found of w.budget.warnings) {
      unique.set(`${found.code}:${w.record.graphNodeId}`, { ...found, node: w.record.graphNodeId });
    }
  }
  const result = dispatchedResult({
    session,
    batchId,
    analysis: call.analysis,
    dagPath: call.dagPath,
    hash: call.hash,
    decision: next.decision,
    written,
    brief: flags.brief,
    ide: call.detected.ide.id,
    warnings: [...unique.values()],
    nextCall: next.decision.remainingLevels > 0
      ? [
        ...call.callWords,
        ...(detached?.modeWords ?? []),
        ...governanceWords(flags),
        ...projectArgs(root),
      ]
      : null,
    detached: detached && runs ? { vendor: detached.vendor, runs } : undefined,
    batchGiven: call.givenBatch !== undefined,
    outputMode: ctx.global,
  });
  if (slices) (result.data as Record<string, unknown>).slices = slices.views(written);
  return result;
}

const IDE_ASSUMED: Warning = {
  code: "IDE_ASSUMED",
  message: "No IDE detected: assuming claude-code (pass --ide to choose).",
};

/** The flags, the session, the DAG and the host; a host without an in-process tool stops here. */
async function openDagCall(input: DagInput, ctx: Ctx): Promise<DagCall> {
  const { flags } = input;
  refuseSingleFlags(input);
  const rid = optionalId(flags["request-id"], "--request-id");
  const givenBatch = optionalId(flags["batch-id"], "--batch-id");
  const workflowId = optionalId(flags["workflow-id"], "--workflow-id") ?? null;
  const session = await openSession(ctx, flags["session-id"]);
  const { project } = session;
  const gitHead = readGitHead(project.root);
  gitHead.catch(() => {});
  const { analysis, shown: dagPath } = await readDagFile(ctx, project, flags["from-dag"]!);
  const hash = await dagHash(analysis.dag);
  const detected = await detectIde(ctx.env, project.root, flags.ide);
  const batchId = givenBatch ?? newUuid();
  const callWords = dagCallWords(flags, session, dagPath, batchId);
  if (flags.mode !== "detached" && !detected.ide.subAgent) {
    const installed = await installedVendors(ctx.env);
    const own = installed.find((v) => detected.ide.id.startsWith(v)) ?? installed[0];
    const detachedCall = own
      ? commandLine([
        ...callWords,
        ...["--mode", "detached", "--vendor", own],
        ...projectArgs(project.root),
      ])
      : null;
    throw dagIdeNotSupported(detected.ide.id, analysis, detachedCall);
  }
  return {
    flags,
    session,
    rid,
    givenBatch,
    batchId,
    workflowId,
    gitHead,
    analysis,
    dagPath,
    hash,
    detected,
    callWords,
  };
}

type NextWave =
  | { kind: "answer"; result: CommandResult }
  | {
    kind: "dispatch";
    decision: Extract<Decision, { kind: "dispatch" }>;
    progress: Map<string, NodeProgress>;
    /** Records the batch already had (a node sent out again after a conflict is not a race). */
    seen: ReadonlySet<string>;
    /** The batch does not exist yet: this call would open it. */
    fresh: boolean;
  };

/** Where the batch stands: a wave to send, an answer without one, or a refusal. */
async function nextWave(ctx: Ctx, call: DagCall): Promise<NextWave> {
  const { session, batchId, analysis, dagPath } = call;
  const state = call.givenBatch === undefined
    ? { batch: undefined, progress: new Map<string, NodeProgress>() }
    : await readDagProgress(
      session.project,
      session.sessionId,
      batchId,
      new Set(analysis.byId.keys()),
      ctx.now(),
    );
  if (state.batch) batchConflict(session.project, batchId, state.batch, call.hash, dagPath);
  // A new batch for a DAG another batch of the session already carries would send it twice.
  else await refuseSecondFanOut(ctx, call);
  const decision = decideNext(analysis, state.progress, call.flags["max-parallel"]);
  switch (decision.kind) {
    case "wait":
      if (decision.level === null) {
        return {
          kind: "answer",
          result: drainedResult(session, batchId, analysis, decision),
        };
      }
      throw levelNotReady(session, batchId, analysis, { ...decision, level: decision.level });
    case "blocked":
      throw dagBlocked(session, batchId, analysis, decision);
    case "complete":
      return { kind: "answer", result: completeResult(session, batchId, analysis) };
    case "dispatch": {
      const dispatched = "dag" in state ? state.dag?.dispatched ?? [] : [];
      return {
        kind: "dispatch",
        decision,
        progress: state.progress,
        seen: new Set(dispatched.map((d) => d.record)),
        fresh: !state.batch,
      };
    }
  }
}
