/**
 * `sub-agent dispatch --from-dag <file>`: a scheduler over dispatch records.
 * Each call reads where the batch stands, then either refuses (a level still
 * running, a failed node, another graph under this batch id) or sends the
 * next wave through the single-dispatch pipeline: compose, prompt budget,
 * record, tool call. All records of a wave join the batch under one lock.
 */
import type { CommandResult } from "../../core/command/spec.ts";
import type { Ctx } from "../../core/command/ctx.ts";
import {
  DAG_MAX_BYTES,
  type DagAnalysis,
  dagHash,
  type DagNode,
  parseDag,
} from "../../core/dag/dag.ts";
import { type NodeProgress, readDagProgress } from "../../core/dag/progress.ts";
import { PeaksError, usageError, type Warning } from "../../core/errors.ts";
import { readGitHead } from "../../core/project/git.ts";
import { detectIde } from "../../core/ide/ide.ts";
import { newUuid, optionalId } from "../../core/ids.ts";
import { displayPath } from "../../core/project/paths.ts";
import { guardFlagPath, type Project } from "../../core/project/project.ts";
import { openSession, type SessionContext } from "../../core/session/session.ts";
import { guardPath } from "../../core/project/guard.ts";
import { governanceWords } from "../../core/prompt_budget/flags.ts";
import { declareArtifacts } from "../_artifact_rules.ts";
import type { BudgetFlags } from "../dispatch/_prompt_budget_step.ts";
import { promptBudgetStep } from "../dispatch/_prompt_budget_step.ts";
import {
  alreadyDispatched,
  batchConflict,
  dagBlocked,
  dagIdeNotSupported,
  dagTooLargeFile,
  levelNotReady,
} from "./_refusals.ts";
import { completeResult, dispatchedResult, drainedResult } from "./_result.ts";
import { decideNext } from "./_schedule.ts";
import { type PreparedDispatch, prepareDispatch, writeDispatches } from "../dispatch/_record.ts";
import { PROMPT_SAFETY_CAP } from "../dispatch/_prompt_input.ts";
import {
  generatedRequestId,
  readSurroundings,
  runtimeArgs,
  type Surroundings,
} from "../dispatch/_runtime_args.ts";
import { assertRole, recordFileOf } from "../../core/record/names_light.ts";
import { commandLine } from "../../core/shell.ts";
import { installedVendors } from "../../core/ide/vendors.ts";
import { type DagDetached, prepareDagDetached } from "./_detached.ts";
import { projectArgs } from "../../core/command/peaks_line.ts";

export interface DagFlags extends BudgetFlags {
  prompt?: string;
  "prompt-file"?: string;
  "request-id"?: string;
  "session-id"?: string;
  "batch-id"?: string;
  ide?: string;
  brief: "inline" | "pointer";
  "write-artifact": string[];
  "heartbeat-interval": number;
  "graph-node"?: string;
  "workflow-id"?: string;
  "from-dag"?: string;
  "max-parallel": number;
  mode: "in-process" | "detached";
  vendor?: string;
  timeout: number;
  "max-concurrent": number;
  "no-throttle": boolean;
}

export interface DagInput {
  flags: DagFlags;
  args: Record<string, string | undefined>;
  given: ReadonlySet<string>;
}

export const DEFAULT_MAX_PARALLEL = 6;

function refuseSingleFlags(input: DagInput): void {
  const single = [
    input.args.role !== undefined && "<role>",
    ...["prompt", "prompt-file", "write-artifact", "graph-node"]
      .filter((name) => input.given.has(name)).map((name) => `--${name}`),
  ].filter((v): v is string => typeof v === "string");
  if (single.length) {
    throw usageError(
      "CONFLICTING_FLAGS",
      `--from-dag takes the role, prompt, artefacts and node id from each node; drop ${
        single.join(", ")
      }.`,
      { data: { flags: single } },
    );
  }
}

/** The same call for the next wave, or with a budget change (budget flags and --project added by the caller). */
export function dagCallWords(
  flags: DagFlags,
  session: SessionContext,
  dagPath: string,
  batchId: string,
): string[] {
  const words = ["peaks", "sub-agent", "dispatch", "--from-dag", dagPath, "--batch-id", batchId];
  const optional: Array<[string, string | number | undefined]> = [
    [
      "--max-parallel",
      flags["max-parallel"] === DEFAULT_MAX_PARALLEL ? undefined : flags["max-parallel"],
    ],
    ["--request-id", flags["request-id"]],
    ["--brief", flags.brief === "inline" ? undefined : flags.brief],
    ["--ide", flags.ide],
    [
      "--heartbeat-interval",
      flags["heartbeat-interval"] === 30 ? undefined : flags["heartbeat-interval"],
    ],
    ["--workflow-id", flags["workflow-id"]],
  ];
  for (const [flag, value] of optional) if (value !== undefined) words.push(flag, String(value));
  if (session.sessionSource !== "binding") words.push("--session-id", session.sessionId);
  return words;
}

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
  return { analysis: parseDag(await Deno.readTextFile(path), shown), shown };
}

async function nodePrompt(project: Project, node: DagNode): Promise<string> {
  let text = node.prompt;
  if (text === undefined) {
    const path = await guardPath(project.root, project.root, node.promptFile!, {
      flag: "from-dag",
      mustExist: true,
    });
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > PROMPT_SAFETY_CAP) {
      throw usageError(
        "INVALID_FLAG_VALUE",
        `Node ${node.id}: promptFile ${displayPath(project.root, path)} is ${
          info.isFile ? `over ${PROMPT_SAFETY_CAP} bytes` : "not a regular file"
        }.`,
        { data: { flag: "from-dag", node: node.id } },
      );
    }
    text = (await Deno.readTextFile(path)).replace(/^\uFEFF/, "");
  }
  if (text.trim() === "") {
    throw usageError("EMPTY_PROMPT", `Node ${node.id} of the DAG has an empty prompt.`, {
      data: { flag: "from-dag", node: node.id },
    });
  }
  return text;
}

export async function dispatchFromDag(input: DagInput, ctx: Ctx): Promise<CommandResult> {
  const { flags } = input;
  refuseSingleFlags(input);
  const rid = optionalId(flags["request-id"], "--request-id");
  const givenBatch = optionalId(flags["batch-id"], "--batch-id");
  const workflowId = optionalId(flags["workflow-id"], "--workflow-id") ?? null;
  const session = await openSession(ctx, flags["session-id"]);
  const { project, sessionId } = session;
  const gitHead = readGitHead(project.root);
  gitHead.catch(() => {});
  const { analysis, shown: dagPath } = await readDagFile(ctx, project, flags["from-dag"]!);
  const hash = await dagHash(analysis.dag);
  const detected = await detectIde(ctx.env, project.root, flags.ide);
  const detachedMode = flags.mode === "detached";
  const batchId = givenBatch ?? newUuid();
  const callWords = dagCallWords(flags, session, dagPath, batchId);
  if (!detachedMode && !detected.ide.inProcess) {
    const installed = await installedVendors(ctx.env);
    const own = installed.find((v) => detected.ide.id.startsWith(v)) ?? installed[0];
    throw dagIdeNotSupported(
      detected.ide.id,
      analysis,
      own
        ? commandLine([
          ...callWords,
          "--mode",
          "detached",
          "--vendor",
          own,
          ...projectArgs(project.root),
        ])
        : null,
    );
  }

  const nodeIds = new Set(analysis.byId.keys());
  const state = givenBatch === undefined
    ? { batch: undefined, progress: new Map<string, NodeProgress>() }
    : await readDagProgress(project, sessionId, batchId, nodeIds, ctx.now());
  if (state.batch) batchConflict(project, batchId, state.batch, hash, dagPath);
  const decision = decideNext(analysis, state.progress, flags["max-parallel"]);
  if (decision.kind === "wait") {
    const { level } = decision;
    if (level === null) return drainedResult(session, batchId, analysis, dagPath, decision);
    throw levelNotReady(session, batchId, analysis, { ...decision, level });
  }
  if (decision.kind === "blocked") throw dagBlocked(session, batchId, analysis, decision);
  if (decision.kind === "complete") {
    return completeResult(session, batchId, analysis, dagPath);
  }

  const warnings: Warning[] = [];
  // Detached: the vendor and the resource budget for the whole wave, decided before any write.
  let detached: DagDetached | undefined;
  if (detachedMode) {
    detached = await prepareDagDetached(
      ctx,
      project,
      flags,
      decision.nodes.length,
      (extra) =>
        commandLine([
          ...callWords,
          ...governanceWords(flags),
          ...extra,
          ...projectArgs(project.root),
        ]),
    );
    warnings.push(...detached.warnings);
  } else if (detected.source === "assumed") {
    warnings.push({
      code: "IDE_ASSUMED",
      message:
        "No IDE detected from the environment or project folders; assuming claude-code. Pass --ide to choose.",
    });
  }
  const now = ctx.now();
  const git = await gitHead;
  const around = new Map<string, Promise<Surroundings>>();
  const gate = promptBudgetStep(ctx, project, detached?.budgetIde ?? detected.ide, flags, () => ({
    words: [...callWords, ...(detached?.modeWords ?? [])],
    save: () => Promise.resolve(),
  }));
  const step = detached ? detached.cap(gate) : gate;
  const prepared: PreparedDispatch[] = await Promise.all(decision.nodes.map(async (id) => {
    const node = analysis.byId.get(id)!;
    const role = assertRole(node.role);
    const requestId = node.requestId ?? rid ?? generatedRequestId(batchId);
    if (!around.has(requestId)) {
      around.set(requestId, readSurroundings(ctx, project, sessionId, requestId));
    }
    const [text, surroundings, artifacts] = await Promise.all([
      nodePrompt(project, node),
      around.get(requestId)!,
      declareArtifacts(
        project,
        { sessionId, requestId, role, flag: "from-dag", at: now.toISOString() },
        node.artifacts ?? [],
        (raw) => guardPath(project.root, project.root, raw, { flag: "from-dag" }),
      ),
    ]);
    const runtime = runtimeArgs(project, {
      sessionId,
      requestId,
      requestIdGenerated: node.requestId === undefined && rid === undefined,
      batchId,
      role,
      ide: detected.ide.id,
      heartbeatIntervalSec: flags["heartbeat-interval"],
      declaredArtifacts: artifacts.declared,
    }, surroundings);
    try {
      return await prepareDispatch({
        project,
        runtime,
        ide: detected.ide,
        brief: flags.brief,
        callerPrompt: text,
        artifactMetas: artifacts.metas,
        git,
        graphNodeId: node.id,
        workflowId,
        now,
        detached: detached?.plan(runtime),
      }, step);
    } catch (error) {
      // A refused prompt refuses the whole wave; say which node it was.
      if (error instanceof PeaksError) error.data.node = node.id;
      throw error;
    }
  }));
  for (const found of await Promise.all(around.values())) warnings.push(...found.warnings);
  const unique = new Map(warnings.map((w) => [`${w.code}:${w.message}`, w]));

  const written = await writeDispatches(prepared, {
    annotate: (batch) => {
      const current = batchConflict(project, batchId, batch, hash, dagPath);
      const section = current ?? {
        hash,
        source: dagPath,
        nodes: analysis.dag.nodes.length,
        levels: analysis.levels.length,
        dispatched: [],
      };
      const taken = section.dispatched.filter((d) => decision.nodes.includes(d.node));
      if (taken.length) throw alreadyDispatched(session, batchId, taken.map((d) => d.node));
      (batch as Record<string, unknown>).dag = section;
    },
    onCreated: (batch, done, index) => {
      const section = (batch as Record<string, unknown>).dag as {
        dispatched: { node: string; record: string; n: number; at: string }[];
      };
      section.dispatched.push({
        node: decision.nodes[index],
        record: recordFileOf(done.path),
        n: done.record.dispatchedInBatch,
        at: now.toISOString(),
      });
    },
  });
  const runs = detached ? await detached.start(written) : undefined;
  for (const w of written) {
    for (const found of w.budget.warnings) {
      unique.set(`${found.code}:${w.record.graphNodeId}`, { ...found, node: w.record.graphNodeId });
    }
  }
  return dispatchedResult({
    session,
    batchId,
    analysis,
    dagPath,
    hash,
    decision,
    written,
    brief: flags.brief,
    ide: detected.ide.id,
    warnings: [...unique.values()],
    nextCall: decision.remainingLevels > 0
      ? [
        ...callWords,
        ...(detached?.modeWords ?? []),
        ...governanceWords(flags),
        ...projectArgs(project.root),
      ]
      : null,
    detached: detached && runs ? { vendor: detached.vendor, runs } : undefined,
  });
}
