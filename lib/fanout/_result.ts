/**
 * The `--from-dag` envelope: one tool call per dispatched node (the prompt
 * only ever inside `toolCalls[i].args.prompt`), where the DAG stands, one
 * visible hint for the whole fan-out, and the command for the next wave.
 */
import type { CommandResult } from "../infra/command/spec.ts";
import { BATCH_SOFT_LIMIT } from "../batch/batch.ts";
import type { DagAnalysis } from "../dag/dag.ts";
import type { Warning } from "../infra/errors.ts";
import type { SessionContext } from "../session/session.ts";
import { commandLine, peaksLine, withOutputMode } from "../infra/shell.ts";
import type { Project } from "../workspace/project.ts";
import { withoutEmpty } from "../infra/command/lean.ts";
import { recordIdOf } from "../record/names.ts";
import type { DispatchRecord, ToolCall } from "../record/record.ts";
import type { Decision } from "./_schedule.ts";
import type { NodeProgress } from "../dag/progress.ts";
import { statusCommand, waitingRows } from "./_refusals.ts";
import type { WrittenDispatch } from "../dispatch/new_record.ts";
import { ideById, PROMPT_KEYS } from "../hosts/registry.ts";

export const DAG_ENVELOPE_VERSION = "2.0.0";
export const DAG_EXPECTED_COMPLETION_SECONDS = 60;

function listed(items: string[], max: number): string {
  const unique = [...new Set(items)];
  return unique.length <= max
    ? unique.join(", ")
    : `${unique.slice(0, max).join(", ")} +${unique.length - max} more`;
}

/** One line for the whole fan-out, printed once before the tool calls. */
export function fanoutHint(
  tool: string,
  roles: string[],
  rids: string[],
  level: number,
  levelsTotal: number,
): string {
  const count = roles.length;
  return `⏳ Spawning ${count} sub-agent${count === 1 ? "" : "s"} via ${tool}: ${
    listed(roles, 6)
  } for rid=${listed(rids, 2)}${
    levelsTotal > 1 ? `, level ${level}/${levelsTotal}` : ""
  } (ETA ~${DAG_EXPECTED_COMPLETION_SECONDS}s)`;
}

export interface DispatchedFacts {
  session: SessionContext;
  batchId: string;
  analysis: DagAnalysis;
  dagPath: string;
  hash: string;
  decision: Extract<Decision, { kind: "dispatch" }>;
  written: WrittenDispatch[];
  brief: "inline" | "pointer";
  ide: string;
  warnings: Warning[];
  /** The command for the next wave or level; null when this was the last. */
  nextCall: string[] | null;
  /** Set for `--mode detached`: the vendor and the supervisors that started. */
  detached?: { vendor: string; runs: Array<{ record: string; runDir: string; pid: number }> };
  /** Whether the caller named the batch (then the envelope does not repeat it). */
  batchGiven: boolean;
  /** The caller's output mode, carried by data.nextCall. */
  outputMode: { json: boolean; pretty: boolean };
}

export function dispatchedResult(facts: DispatchedFacts): CommandResult {
  const { session, batchId, analysis, decision, written } = facts;
  const nextCall = facts.nextCall
    ? withOutputMode(commandLine(facts.nextCall), facts.outputMode)
    : null;
  const warnings = [...facts.warnings];
  if (written.length > BATCH_SOFT_LIMIT) {
    warnings.push({
      code: "BATCH_OVER_LIMIT",
      message:
        `This wave starts ${written.length} sub-agents at once; more than ${BATCH_SOFT_LIMIT} in parallel is hard to follow and to converge (lower --max-parallel).`,
      count: written.length,
    });
  }
  const data = dispatchedData(facts, nextCall);
  if (facts.detached) {
    data.projectRoot = session.project.root;
    data.instructions = detachedInstructions(facts, nextCall);
  } else {
    // A host whose tool answers before the sub-agents end (Codex) says what to call next.
    const followUp = ideById(facts.ide)?.subAgent?.followUp;
    if (followUp) data.instructions = [followUp];
  }
  // In process, the next step is the tool calls in data, then finalize: nothing to run first.
  const follow = facts.detached
    ? [watchCommand(session.project, session.sessionId, batchId), statusCommand(session, batchId)]
    : [];
  return {
    data,
    warnings,
    nextActions: follow,
    human: [
      `dispatched level ${decision.level}/${analysis.levels.length}, wave ${decision.wave}/${decision.wavesInLevel}: ${written.length} node(s) in batch ${batchId}`,
      ...written.map((w) => `  ${w.record.graphNodeId} (${w.record.role}) ${w.displayPath}`),
      nextCall ? `next: ${nextCall}` : "last wave of the DAG",
    ].join("\n"),
  };
}

/** The tool calls and their records, in the same order, and nothing the caller already has. */
function dispatchedData(facts: DispatchedFacts, nextCall: string | null): Record<string, unknown> {
  const { batchId, analysis, decision, written } = facts;
  // Detached nodes have no tool call: their vendors already run.
  const toolCalls = facts.detached ? [] : written.map((w) => w.toolCall!);
  return withoutEmpty({
    envelopeVersion: DAG_ENVELOPE_VERSION,
    batchId: facts.batchGiven ? undefined : batchId,
    toolCalls,
    toolCallAliases: written[0]?.aliases,
    records: written.map((w) => recordIdOf(w.path)),
    ...(facts.detached
      ? {
        mode: "detached",
        vendor: facts.detached.vendor,
        detached: facts.detached.runs.map((r) => ({
          dispatchRecordPath: r.record,
          runDir: r.runDir,
          supervisorPid: r.pid,
          log: `${r.runDir}/log.txt`,
        })),
      }
      : {}),
    orchestratorVisibleHint: fanoutHint(
      facts.detached ? `detached ${facts.detached.vendor}` : `${toolCalls[0].name} tool`,
      written.map((w) => w.record.role),
      written.map((w) => w.record.requestId),
      decision.level,
      analysis.levels.length,
    ),
    headroomResults: written.some((w) => w.budget.headroomCompressed)
      ? written.map((w) => w.budget.headroomResult)
      : undefined,
    forcedAt: written.find((w) => w.budget.forcedAt)?.budget.forcedAt,
    nextCall,
  });
}

function detachedInstructions(facts: DispatchedFacts, nextCall: string | null): string[] {
  return [
    `The sub-agents already run as separate ${
      facts.detached!.vendor
    } processes: print data.orchestratorVisibleHint once and make no tool call.`,
    "Follow them with the first nextAction; each supervisor sets its record's outcome when its vendor ends.",
    "When they have ended: git status --short --untracked-files=all, git diff, then peaks sub-agent finalize --record <its record> --outcome <its outcome> for each.",
    nextCall
      ? "Once every record of this wave is finalized, run data.nextCall for the next wave or level."
      : "This was the last wave: once every record is finalized, the DAG is done.",
  ];
}

/** Every node of the DAG is done: nothing to send. */
export function completeResult(
  session: SessionContext,
  batchId: string,
  analysis: DagAnalysis,
): CommandResult {
  return {
    data: {
      envelopeVersion: DAG_ENVELOPE_VERSION,
      batchId,
      complete: true,
      nodes: analysis.dag.nodes.length,
    },
    nextActions: [statusCommand(session, batchId)],
    human: `every node of the DAG in batch ${batchId} is done; nothing to dispatch`,
  };
}

/**
 * A record whose tool call was never made: still queued, never beat, never fetched its brief.
 * (The envelope that carried the call was lost, e.g. the dispatch ran without --json.)
 */
function neverStarted(record: DispatchRecord | null): record is DispatchRecord {
  return record !== null && record.status === "queued" && record.heartbeats.length === 0 &&
    !record.briefedAt && record.toolCall !== null;
}

/** The tool call as the dispatch envelope carried it (an inline record keeps the prompt once). */
function storedToolCall(record: DispatchRecord): ToolCall {
  const { promptIn, ...call } = record.toolCall as ToolCall & { promptIn?: string };
  if (!promptIn || !PROMPT_KEYS.includes(promptIn)) return call;
  return { ...call, args: { ...call.args, [promptIn]: record.prompt } };
}

/**
 * Every node is out and some still run: nothing new to send. Members that never started get
 * their tool calls again, so a fan-out whose envelope was lost is recovered by the same command.
 */
export function drainedResult(
  session: SessionContext,
  batchId: string,
  analysis: DagAnalysis,
  decision: Extract<Decision, { kind: "wait" }>,
): CommandResult {
  const waiting = waitingRows(session.project, analysis, decision.waiting);
  const unsent = decision.waiting.filter((p) => neverStarted(p.record));
  if (unsent.length) return resentResult(batchId, unsent);
  return {
    data: { envelopeVersion: DAG_ENVELOPE_VERSION, batchId, dispatchCount: 0, waiting },
    nextActions: [],
    human:
      `every node of the DAG in batch ${batchId} is dispatched; ${waiting.length} still running`,
  };
}

function resentResult(
  batchId: string,
  progress: NodeProgress[],
): CommandResult {
  const unsent = progress.map((p) => p.record!);
  const toolCalls = unsent.map(storedToolCall);
  const records = progress.map((p) => recordIdOf(p.recordPath!));
  return {
    data: withoutEmpty({
      envelopeVersion: DAG_ENVELOPE_VERSION,
      batchId,
      resent: true,
      toolCalls,
      records,
      orchestratorVisibleHint: fanoutHint(
        `${toolCalls[0].name} tool`,
        unsent.map((r) => r.role),
        unsent.map((r) => r.requestId),
        1,
        1,
      ),
      instructions: [
        "These sub-agents were dispatched but never started (their tool calls were not made): make these calls now, in one message.",
      ],
    }),
    nextActions: [],
    human: `${unsent.length} dispatched sub-agent(s) of batch ${batchId} never started: ${
      unsent.map((r) => r.role).join(", ")
    } (use --json for data.toolCalls)`,
  };
}

/** The wave's watch command (the orchestrator's next step while vendors run). */
function watchCommand(project: Project, sessionId: string, batchId: string): string {
  return peaksLine(project.root, [
    "sub-agent",
    "watch",
    "--batch",
    batchId,
    "--session-id",
    sessionId,
    "--interval",
    "2s",
  ]);
}
