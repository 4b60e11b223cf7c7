/**
 * In-process dispatch: the record is written and the envelope hands the
 * orchestrator the tool call that starts the sub-agent inside its own IDE.
 */
import type { CommandResult } from "../../core/command/spec.ts";
import { peaksLine } from "../../core/command/peaks_line.ts";
import { BATCH_SOFT_LIMIT } from "../../core/batch/batch.ts";
import type { Warning } from "../../core/errors.ts";
import { compactMeta } from "../_artifact_rules.ts";
import type { RecordInputs } from "../detached/_input.ts";
import {
  ENVELOPE_VERSION,
  type PromptBudgetStep,
  writeDispatch,
  type WrittenDispatch,
} from "./_record.ts";
import { EXPECTED_COMPLETION_SECONDS, visibleHint } from "./_tool_call.ts";

const utf8 = (text: string) => new TextEncoder().encode(text).length;

export async function dispatchInline(
  inputs: RecordInputs,
  budgetStep: PromptBudgetStep,
): Promise<CommandResult<unknown>> {
  const { project, runtime, flags, warnings } = inputs;
  const written = await writeDispatch({
    project,
    runtime,
    ide: inputs.ide,
    brief: flags.brief,
    callerPrompt: inputs.prompt.text,
    artifactMetas: inputs.artifactMetas,
    git: inputs.git,
    graphNodeId: inputs.graphNodeId,
    workflowId: inputs.workflowId,
    now: inputs.now,
  }, budgetStep);
  warnings.push(...written.budget.warnings);
  const overLimit = batchOverLimit(runtime.batchId, written.record.dispatchedInBatch);
  if (overLimit) warnings.push(overLimit);
  const pointer = flags.brief === "pointer";
  const { role, batchId } = runtime;
  return {
    data: inlineData(inputs, written),
    warnings,
    nextActions: pointer
      ? []
      : [peaksLine(project.root, ["sub-agent", "status", "--batch", batchId])],
    human: [
      `dispatched ${role} as #${written.record.dispatchedInBatch} of batch ${batchId} (${inputs.ide.id}, brief ${flags.brief})`,
      `record: ${written.displayPath}`,
      `tool call: ${
        written.toolCall!.name
      } (prompt ${written.record.promptSize} bytes; use --json for data.toolCall)`,
    ].join("\n"),
  };
}

function batchOverLimit(batchId: string, n: number): Warning | undefined {
  if (n <= BATCH_SOFT_LIMIT) return undefined;
  return {
    code: "BATCH_OVER_LIMIT",
    message:
      `Batch ${batchId} now has ${n} members; more than ${BATCH_SOFT_LIMIT} parallel sub-agents is hard to follow and to converge.`,
    count: n,
  };
}

function inlineData(inputs: RecordInputs, written: WrittenDispatch): Record<string, unknown> {
  const { runtime, flags } = inputs;
  const { record, budget } = written;
  const toolCall = written.toolCall!;
  const shownMetas = inputs.artifactMetas.map(compactMeta);
  const promptBytes = utf8(String(toolCall.args.prompt));
  const artifactBytes = shownMetas.length ? utf8(JSON.stringify(shownMetas)) : 0;
  const data: Record<string, unknown> = {
    envelopeVersion: ENVELOPE_VERSION,
    role: runtime.role,
    ide: inputs.ide.id,
    originalPromptSize: record.originalPromptSize,
    promptSize: record.promptSize,
    toolCall,
    ...(written.aliases.length ? { toolCallAliases: written.aliases } : {}),
    dispatchRecordPath: written.displayPath,
    batchId: runtime.batchId,
    dispatchedInBatch: record.dispatchedInBatch,
    headroomCompressed: budget.headroomCompressed,
    headroomResult: budget.headroomResult,
    forcedAt: budget.forcedAt,
    ...(budget.verdict && flags.brief !== "pointer" ? { contextBudget: budget.verdict } : {}),
    contextImpact: { promptBytes, artifactBytes, totalBytes: promptBytes + artifactBytes },
    artifactMetas: shownMetas,
    orchestratorVisibleHint: visibleHint(
      toolCall.name,
      runtime.role,
      runtime.requestId,
      runtime.batchId,
    ),
    artifactsPublicPaths: runtime.declaredArtifacts,
    expectedCompletionSeconds: EXPECTED_COMPLETION_SECONDS,
  };
  // Pointer mode promises an envelope under 1 KB: the fields above and nothing more.
  if (flags.brief !== "pointer") {
    data.projectRoot = inputs.project.root;
    data.instructions = [
      "This was a dry run: call the tool data.toolCall.name with data.toolCall.args now.",
      "Print data.orchestratorVisibleHint once per fan-out, then issue all tool calls in one message.",
      `When the sub-agent returns: git status, git diff, then peaks sub-agent finalize --record ${written.displayPath} --outcome done --result-json '<its return JSON>'.`,
    ];
  }
  return data;
}
