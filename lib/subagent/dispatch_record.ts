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

/** What the prompt budget step returns; the prompt is what the sub-agent will get. */
export interface BudgetedPrompt {
  prompt: string;
  headroomCompressed: boolean;
  headroomResult: unknown | null;
  forcedAt: string | null;
  warnings: Warning[];
}

export type PromptBudgetStep = (composed: string) => Promise<BudgetedPrompt>;

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
}

export interface WrittenDispatch {
  path: string;
  displayPath: string;
  record: DispatchRecord;
  budget: BudgetedPrompt;
  toolCall: ToolCall;
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
  toolCall: ToolCall,
  n: number,
): DispatchRecord {
  const at = plan.now.toISOString();
  const { runtime } = plan;
  // The inline tool call carries the prompt already stored in `prompt`; keep one copy on disk.
  const stored: ToolCall = plan.brief === "inline"
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
    mode: "in-process",
    vendor: null,
    brief: plan.brief,
    heartbeatIntervalSec: runtime.heartbeatIntervalSec,
    prompt: budget.prompt,
    promptSize: utf8(budget.prompt),
    originalPromptSize: utf8(plan.callerPrompt),
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
    headroomResult: budget.headroomResult,
    forcedAt: budget.forcedAt,
    completedAt: null,
    error: null,
    result: null,
    disposed: false,
    disposedAt: null,
    graphNodeId: plan.graphNodeId,
    workflowId: plan.workflowId,
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
    const budget = await budgetStep(composePrompt(runtime, shown, plan.callerPrompt));
    const toolPrompt = plan.brief === "pointer" ? pointerPrompt(fileName) : budget.prompt;
    const { toolCall, aliases } = buildToolCall(
      plan.ide,
      runtime.role,
      runtime.requestId,
      toolPrompt,
    );
    let record: DispatchRecord | undefined;
    try {
      await joinBatch(
        project,
        sid,
        runtime.batchId,
        [{ role: runtime.role, requestId: runtime.requestId, record: fileName }],
        plan.now,
        async (n) => {
          record = initialRecord(plan, budget, toolCall, n);
          const created = await createFileExclusive(path, `${JSON.stringify(record, null, 2)}\n`);
          if (!created) throw NAME_TAKEN;
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
