/**
 * Dispatch, step by step: compose the prompt for a chosen record path, run
 * it through the prompt budget, build the tool call, then join the batch and
 * create the records (exclusively, while the batch lock is held). A record
 * name that is already taken is replaced by a fresh one of the same length.
 */
import { type Batch, joinBatch } from "../batch/batch.ts";
import type { Warning } from "../infra/errors.ts";
import { PeaksError } from "../infra/errors.ts";
import type { GitHead } from "../infra/git.ts";
import type { IdeEntry } from "../hosts/registry.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import type { ArtifactMeta, DispatchRecord, ToolCall } from "../record/record.ts";
import { RECORD_VERSION } from "../state/record.ts";
import { recordFileName, recordIdOf } from "../record/names.ts";
import { composePrompt } from "./instructions.ts";
import type { RuntimeArgs } from "./runtime_args.ts";
import { buildToolCall, pointerPrompt, promptKey } from "./tool_call.ts";
import { applyTuning, type RoleTuning } from "./role_tuning.ts";
import { createFileExclusive, exists } from "../infra/fs/files.ts";
import { isoTime } from "../infra/ids.ts";

/**
 * What the prompt budget step returns. `prompt` is the caller's part of the
 * prompt, compressed or not; the CLI-generated blocks are composed around it
 * afterwards and never compressed.
 */
/** The version of the envelope a single dispatch answers with, in-process or detached. */
export const ENVELOPE_VERSION = "3.0.0";

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

/** An isolated slice: where it works, what its prompt and record say, the host's own argument. */
export interface IsolationPlan {
  /** Arguments added to the host's sub-agent tool call (Claude Code: `isolation: "worktree"`). */
  toolArgs?: Record<string, unknown>;
  /** The prompt block that sends the sub-agent into its worktree (placed before the task). */
  block(recordFile: string): string;
  /** The record's `worktree` field. */
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
  isolation?: IsolationPlan;
  /** The role's model and effort preferences, passed where the host's tool takes them. */
  tuning?: RoleTuning;
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

const ATTEMPTS = 6;

function initialRecord(
  plan: DispatchPlan,
  budget: BudgetedPrompt,
  composed: string,
  toolCall: ToolCall | null,
  n: number,
  recordFile: string,
): DispatchRecord {
  const at = isoTime(plan.now);
  const { runtime } = plan;
  // The inline tool call carries the prompt already stored in `prompt`; keep one copy on disk.
  const stored: ToolCall | null = toolCall && plan.brief === "inline"
    ? {
      ...toolCall,
      args: { ...toolCall.args, [promptKey(toolCall)]: undefined },
      // Which argument held the prompt: a resent call puts it back there.
      promptIn: promptKey(toolCall),
    }
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
    ...plan.isolation?.fields(recordFile),
  };
}

interface Prepared {
  plan: DispatchPlan;
  budget: BudgetedPrompt;
  fileName: string;
  path: string;
  shown: string;
  composed: string;
  /** Null for a detached dispatch. */
  toolCall: ToolCall | null;
  aliases: string[];
}

/** The full prompt for a record: peaks' blocks around the caller's prompt (detached: its own slice). */
function composeFor(
  plan: DispatchPlan,
  shown: string,
  fileName: string,
  callerPrompt: string,
): string {
  const task = plan.isolation
    ? `${plan.isolation.block(fileName)}\n\n${callerPrompt}`
    : callerPrompt;
  return plan.detached
    ? plan.detached.compose(shown, fileName, task)
    : composePrompt(plan.runtime, shown, task);
}

/** A record name that is free on disk right now (exclusive create still decides). */
async function freeName(plan: DispatchPlan): Promise<{ fileName: string; path: string }> {
  const { project, runtime } = plan;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const fileName = recordFileName(runtime.requestId, runtime.role, plan.now);
    const path = project.layout.dispatchRecord(runtime.sessionId, fileName);
    if (!(await exists(path))) return { fileName, path };
  }
  throw nameConflict(plan);
}

function nameConflict(plan: DispatchPlan): PeaksError {
  const dir = plan.project.layout.agentsDir(plan.runtime.sessionId);
  return new PeaksError(
    "RECORD_NAME_CONFLICT",
    `Could not find a free dispatch record name in ${
      displayPath(plan.project.root, dir)
    } after ${ATTEMPTS} attempts; retry the dispatch.`,
  );
}

/** The prompt and tool call for a record name; the budget was judged for names of this length. */
function materialize(
  plan: DispatchPlan,
  budget: BudgetedPrompt,
  fileName: string,
  path: string,
): Prepared {
  const shown = displayPath(plan.project.root, path);
  const composed = composeFor(plan, shown, fileName, budget.prompt);
  if (plan.detached) {
    return { plan, budget, fileName, path, shown, composed, toolCall: null, aliases: [] };
  }
  // A host-isolated sub-agent starts in its own worktree: its brief names the project.
  const root = plan.isolation?.toolArgs ? plan.project.root : undefined;
  const toolPrompt = plan.brief === "pointer"
    ? pointerPrompt(recordIdOf(fileName), root)
    : composed;
  const { toolCall, aliases } = buildToolCall(
    plan.ide,
    plan.runtime.role,
    plan.runtime.requestId,
    toolPrompt,
    plan.graphNodeId,
  );
  if (plan.isolation?.toolArgs) Object.assign(toolCall.args, plan.isolation.toolArgs);
  const skipped = applyTuning(plan.ide.subAgent!, plan.ide.name, plan.tuning, toolCall.args);
  if (skipped.length) budget = { ...budget, warnings: [...budget.warnings, ...skipped] };
  return { plan, budget, fileName, path, shown, composed, toolCall, aliases };
}

/**
 * Composes one dispatch and runs it through the prompt budget; nothing is
 * written yet. A refusal from the budget step throws here.
 */
export async function prepareDispatch(
  plan: DispatchPlan,
  budgetStep: PromptBudgetStep,
): Promise<Prepared> {
  const { fileName, path } = await freeName(plan);
  // Composing around an empty prompt measures exactly what the blocks add.
  const overhead = utf8(composeFor(plan, displayPath(plan.project.root, path), fileName, ""));
  const budget = await budgetStep(plan.callerPrompt.trim(), overhead);
  return materialize(plan, budget, fileName, path);
}

export type PreparedDispatch = Prepared;

/**
 * Joins the batch with every prepared dispatch under one lock: members are
 * numbered in order and each record is created exclusively while the lock is
 * held. A name taken meanwhile gets a fresh one (same length, so the budget
 * verdict stands). `annotate` sees the batch under the lock first and may
 * refuse by throwing; `onCreated` runs after each record exists.
 */
export async function writeDispatches(
  prepared: Prepared[],
  options: {
    annotate?: (batch: Batch) => void;
    onCreated?: (batch: Batch, written: WrittenDispatch, index: number) => void;
  } = {},
): Promise<WrittenDispatch[]> {
  if (prepared.length === 0) return [];
  const first = prepared[0].plan;
  const { project, runtime } = first;
  const written: WrittenDispatch[] = [];
  let batchSeen: Batch | undefined;
  let next = 0;
  await joinBatch(
    project,
    runtime.sessionId,
    runtime.batchId,
    // The record names are reserved in the batch file before any record exists.
    prepared.map((p) => ({
      role: p.plan.runtime.role,
      requestId: p.plan.runtime.requestId,
      record: p.fileName,
    })),
    first.now,
    async (n) => {
      const index = next++;
      const current = prepared[index];
      const record = initialRecord(
        current.plan,
        current.budget,
        current.composed,
        current.toolCall,
        n,
        current.fileName,
      );
      // Names were checked free just before the lock; losing one to a sibling process is
      // astronomically rare and is reported rather than renamed (the batch reserved this name).
      if (!await createFileExclusive(current.path, `${JSON.stringify(record)}\n`)) {
        throw nameConflict(current.plan);
      }
      const done: WrittenDispatch = {
        path: current.path,
        displayPath: current.shown,
        record,
        budget: current.budget,
        toolCall: current.toolCall,
        aliases: current.aliases,
      };
      written.push(done);
      if (batchSeen) options.onCreated?.(batchSeen, done, index);
    },
    (batch) => {
      batchSeen = batch;
      options.annotate?.(batch);
    },
  );
  return written;
}

export async function writeDispatch(
  plan: DispatchPlan,
  budgetStep: PromptBudgetStep,
): Promise<WrittenDispatch> {
  const [written] = await writeDispatches([await prepareDispatch(plan, budgetStep)]);
  return written;
}
