/**
 * Dispatch, step by step: compose the prompt for a chosen record path, run
 * it through the prompt budget, build the tool call, then join the batch and
 * create the record (exclusively, while the batch lock is held). A record
 * name that is already taken starts the round again with a fresh name.
 */
import { createFileExclusive } from "../core/atomic.ts";
import { joinBatch } from "../core/batches.ts";
import type { Warning } from "../core/errors.ts";
import { PeaksError } from "../core/errors.ts";
import type { GitHead } from "../core/git.ts";
import type { IdeEntry } from "../core/ide.ts";
import { displayPath } from "../core/paths.ts";
import type { Project } from "../core/project.ts";
import type { ArtifactMeta, DispatchRecord, ToolCall } from "../core/records.ts";
import { RECORD_VERSION, recordFileName } from "../core/record_names.ts";
import { composePrompt } from "./prompt_blocks.ts";
import type { RuntimeArgs } from "./runtime_args.ts";
import { buildToolCall, pointerPrompt } from "./tool_call.ts";

/**
 * What the prompt budget step returns. `prompt` is the caller's part of the
 * prompt, compressed or not; the CLI-generated blocks are composed around it
 * afterwards and never compressed.
 */
export interface BudgetedPrompt {
  prompt: string;
  /** Size of the composed prompt before compression. */
  originalPromptSize: number;
  headroomCompressed: boolean;
  /** The measured headroom result for the envelope (no CCR hashes). */
  headroomResult: unknown | null;
  /** The same with CCR hashes, kept in the record for a later rehydrate. */
  headroomRecord: unknown | null;
  forcedAt: string | null;
  warnings: Warning[];
  /** Budget facts for the envelope (tier, percent, window), when the gate ran. */
  verdict: Record<string, unknown> | null;
}

/** Judges (and maybe compresses) the caller's prompt; `overheadBytes` is what composing adds. */
export type PromptBudgetStep = (
  callerPrompt: string,
  overheadBytes: number,
) => Promise<BudgetedPrompt>;

/** A detached dispatch: its own prompt, no tool call, the supervisor's fields in the record. */
export interface DetachedPlan {
  vendor: string;
  compose(recordPath: string, recordFile: string, callerPrompt: string): string;
  /** Stored as extra record fields (`detached`). */
  fields(recordFile: string): Record<string, unknown>;
}

export interface DispatchPlan {
  project: Project;
  runtime: RuntimeArgs;
  ide: IdeEntry;
  brief: "inline" | "pointer";
  callerPrompt: string;
  artifactMetas: ArtifactMeta[];
  git: GitHead | null;
  graphNodeId: string | null;
  workflowId: string | null;
  now: Date;
  detached?: DetachedPlan;
}

export interface WrittenDispatch {
  path: string;
  displayPath: string;
  record: DispatchRecord;
  budget: BudgetedPrompt;
  /** Null for a detached dispatch: the supervisor starts the vendor. */
  toolCall: ToolCall | null;
  aliases: string[];
}

const utf8 = (text: string) => new TextEncoder().encode(text).length;

const NAME_TAKEN = Symbol("record name taken");
const ATTEMPTS = 6;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

function initialRecord(
  plan: DispatchPlan,
  budget: BudgetedPrompt,
  composed: string,
  toolCall: ToolCall | null,
  n: number,
  recordFile: string,
): DispatchRecord {
  const at = plan.now.toISOString();
  const { runtime } = plan;
  // The inline tool call carries the prompt already stored in `prompt`; keep one copy on disk.
  const stored: ToolCall | null = toolCall && plan.brief === "inline"
    ? { ...toolCall, args: { ...toolCall.args, prompt: undefined }, promptIn: "prompt" }
    : toolCall;
  return {
    version: RECORD_VERSION,
    createdAt: at,
    updatedAt: at,
    sessionId: runtime.sessionId,
    requestId: runtime.requestId,
    requestIdSource: runtime.requestIdGenerated ? "generated" : "flag",
    role: runtime.role,
    batchId: runtime.batchId,
    dispatchedInBatch: n,
    ide: plan.ide.id,
    mode: plan.detached ? "detached" : "in-process",
    vendor: plan.detached?.vendor ?? null,
    brief: plan.brief,
    heartbeatIntervalSec: runtime.heartbeatIntervalSec,
    prompt: composed,
    promptSize: utf8(composed),
    originalPromptSize: budget.originalPromptSize,
    toolCall: JSON.parse(JSON.stringify(stored)),
    status: "queued",
    outcome: null,
    stage: null,
    heartbeats: [],
    lastBeatAt: null,
    truncated: false,
    revivedAt: null,
    artifactMetas: plan.artifactMetas,
    declaredArtifacts: runtime.declaredArtifacts,
    gitHead: plan.git?.head ?? null,
    gitBranch: plan.git?.branch ?? null,
    headroomResult: budget.headroomRecord,
    forcedAt: budget.forcedAt,
    completedAt: null,
    error: null,
    result: null,
    disposed: false,
    disposedAt: null,
    graphNodeId: plan.graphNodeId,
    workflowId: plan.workflowId,
    ...plan.detached?.fields(recordFile),
  };
}

export async function writeDispatch(
  plan: DispatchPlan,
  budgetStep: PromptBudgetStep,
): Promise<WrittenDispatch> {
  const { project, runtime } = plan;
  const sid = runtime.sessionId;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const fileName = recordFileName(runtime.requestId, runtime.role, plan.now);
    const path = project.layout.dispatchRecord(sid, fileName);
    if (await exists(path)) continue;
    const shown = displayPath(project.root, path);
    const compose = (prompt: string) =>
      plan.detached
        ? plan.detached.compose(shown, fileName, prompt)
        : composePrompt(runtime, shown, prompt);
    // Composing around an empty prompt measures exactly what the blocks add.
    const overhead = utf8(compose(""));
    const budget = await budgetStep(plan.callerPrompt.trim(), overhead);
    const composed = compose(budget.prompt);
    const toolPrompt = plan.brief === "pointer" ? pointerPrompt(fileName) : composed;
    const { toolCall, aliases } = plan.detached
      ? { toolCall: null, aliases: [] }
      : buildToolCall(plan.ide, runtime.role, runtime.requestId, toolPrompt);
    let record: DispatchRecord | undefined;
    try {
      await joinBatch(
        project,
        sid,
        runtime.batchId,
        [{ role: runtime.role, requestId: runtime.requestId }],
        plan.now,
        async (n) => {
          record = initialRecord(plan, budget, composed, toolCall, n, fileName);
          const created = await createFileExclusive(path, `${JSON.stringify(record, null, 2)}\n`);
          if (!created) throw NAME_TAKEN;
          return fileName;
        },
      );
    } catch (error) {
      if (error === NAME_TAKEN) continue;
      throw error;
    }
    return { path, displayPath: shown, record: record!, budget, toolCall, aliases };
  }
  throw new PeaksError(
    "RECORD_NAME_CONFLICT",
    `Could not find a free dispatch record name in ${
      displayPath(project.root, project.layout.agentsDir(sid))
    } after ${ATTEMPTS} attempts; retry the dispatch.`,
  );
}
