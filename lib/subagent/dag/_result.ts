/**
 * The `--from-dag` envelope: one tool call per dispatched node (the prompt
 * only ever inside `toolCalls[i].args.prompt`), where the DAG stands, one
 * visible hint for the whole fan-out, and the command for the next wave.
 */
import type { CommandResult } from "../../core/command/spec.ts";
import { BATCH_SOFT_LIMIT } from "../../core/batch/batch.ts";
import type { DagAnalysis } from "../../core/dag/dag.ts";
import type { Warning } from "../../core/errors.ts";
import type { SessionContext } from "../../core/session/session.ts";
import { commandLine } from "../../core/shell.ts";
import { compactMeta } from "../_artifact_rules.ts";
import type { Decision } from "./_schedule.ts";
import { statusCommand, waitingList, waitingRows } from "./_refusals.ts";
import type { WrittenDispatch } from "../dispatch/_record.ts";
import { promptOf } from "../dispatch/_tool_call.ts";
import { watchCommand } from "./_detached.ts";

export const DAG_ENVELOPE_VERSION = "1.0.0";
export const DAG_EXPECTED_COMPLETION_SECONDS = 60;

const utf8 = (text: string) => new TextEncoder().encode(text).length;

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
  batchId: string,
  level: number,
  levelsTotal: number,
): string {
  const count = roles.length;
  return `⏳ Spawning ${count} sub-agent${count === 1 ? "" : "s"} via ${tool}: ${
    listed(roles, 6)
  } for rid=${
    listed(rids, 2)
  }, batch-id=${batchId}, level ${level}/${levelsTotal} (ETA ~${DAG_EXPECTED_COMPLETION_SECONDS}s)`;
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
}

export function dispatchedResult(facts: DispatchedFacts): CommandResult {
  const { session, batchId, analysis, decision, written } = facts;
  const pointer = facts.brief === "pointer";
  const nextCall = facts.nextCall ? commandLine(facts.nextCall) : null;
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
  if (!pointer) {
    data.projectRoot = session.project.root;
    data.instructions = dispatchedInstructions(facts, nextCall);
  }
  const follow = facts.detached
    ? [watchCommand(session.project, session.sessionId, batchId), statusCommand(session, batchId)]
    : [statusCommand(session, batchId)];
  return {
    data,
    warnings,
    nextActions: pointer ? [] : follow,
    human: [
      `dispatched level ${decision.level}/${analysis.levels.length}, wave ${decision.wave}/${decision.wavesInLevel}: ${written.length} node(s) in batch ${batchId}`,
      ...written.map((w) => `  ${w.record.graphNodeId} (${w.record.role}) ${w.displayPath}`),
      nextCall ? `next: ${nextCall}` : "last wave of the DAG",
    ].join("\n"),
  };
}

/** One entry per dispatched node; pointer mode keeps only what finds the record. */
function nodeEntries(facts: DispatchedFacts) {
  return facts.written.map((w) => {
    const node = facts.analysis.byId.get(w.record.graphNodeId!)!;
    const base = {
      nodeId: node.id,
      role: w.record.role,
      requestId: w.record.requestId,
      dispatchedInBatch: w.record.dispatchedInBatch,
      dispatchRecordPath: w.displayPath,
    };
    if (facts.brief === "pointer") return base;
    return {
      ...base,
      ...(node.label ? { label: node.label } : {}),
      foundation: node.foundation === true,
      complexity: node.complexity ?? null,
      originalPromptSize: w.record.originalPromptSize,
      promptSize: w.record.promptSize,
      headroomCompressed: w.budget.headroomCompressed,
      headroomResult: w.budget.headroomResult,
      forcedAt: w.budget.forcedAt,
      ...(w.budget.verdict ? { contextBudget: w.budget.verdict } : {}),
    };
  });
}

function dispatchedData(facts: DispatchedFacts, nextCall: string | null): Record<string, unknown> {
  const { batchId, analysis, decision, written } = facts;
  // Detached nodes have no tool call: their vendors already run.
  const toolCalls = facts.detached ? [] : written.map((w) => w.toolCall!);
  const metas = written.flatMap((w) => w.record.artifactMetas).map(compactMeta);
  const promptBytes = toolCalls.reduce((sum, c) => sum + utf8(promptOf(c)), 0);
  const artifactBytes = metas.length ? utf8(JSON.stringify(metas)) : 0;
  return {
    envelopeVersion: DAG_ENVELOPE_VERSION,
    batchId,
    ide: facts.ide,
    dag: {
      path: facts.dagPath,
      sha256: facts.hash,
      nodes: analysis.dag.nodes.length,
      edges: analysis.edgeCount,
    },
    level: decision.level,
    levelsTotal: analysis.levels.length,
    wave: decision.wave,
    wavesInLevel: decision.wavesInLevel,
    remainingLevels: decision.remainingLevels,
    dispatchCount: written.length,
    toolCalls,
    ...(written[0]?.aliases.length ? { toolCallAliases: written[0].aliases } : {}),
    nodes: nodeEntries(facts),
    dispatchRecordPaths: written.map((w) => w.displayPath),
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
      batchId,
      decision.level,
      analysis.levels.length,
    ),
    expectedCompletionSeconds: DAG_EXPECTED_COMPLETION_SECONDS,
    artifactsPublicPaths: [...new Set(written.flatMap((w) => w.record.declaredArtifacts))],
    artifactMetas: metas,
    contextImpact: { promptBytes, artifactBytes, totalBytes: promptBytes + artifactBytes },
    nextCall,
    complete: false,
  };
}

function dispatchedInstructions(facts: DispatchedFacts, nextCall: string | null): string[] {
  const { decision } = facts;
  if (facts.detached) {
    return [
      `The sub-agents already run as separate ${facts.detached.vendor} processes: print data.orchestratorVisibleHint once and make no tool call.`,
      "Follow them with the first nextAction; each supervisor sets its record's outcome when its vendor ends.",
      "When they have ended: git status, git diff, then peaks sub-agent finalize --record <its dispatchRecordPath> --outcome <its outcome> for each.",
      nextCall
        ? "Once every record of this wave is finalized, run data.nextCall for the next wave or level."
        : "This was the last wave: once every record is finalized, the DAG is done.",
    ];
  }
  return [
    "This was a dry run: print data.orchestratorVisibleHint once, then make every call in data.toolCalls in ONE message.",
    "When each sub-agent returns: git status, git diff, then peaks sub-agent finalize --record <its dispatchRecordPath> --outcome done --result-json '<its return JSON>'.",
    nextCall
      ? `Once every record of this wave is finalized, run data.nextCall for the next ${
        decision.wave < decision.wavesInLevel ? "wave" : "level"
      }.`
      : "This was the last wave: once every record is finalized, the DAG is done.",
  ];
}

/** The fields shared by the two answers that send nothing (complete, drained). */
function idleEnvelope(batchId: string, analysis: DagAnalysis, dagPath: string) {
  return {
    envelopeVersion: DAG_ENVELOPE_VERSION,
    batchId,
    dag: { path: dagPath, nodes: analysis.dag.nodes.length, edges: analysis.edgeCount },
    level: null,
    levelsTotal: analysis.levels.length,
    remainingLevels: 0,
    dispatchCount: 0,
    toolCalls: [],
    dispatchRecordPaths: [],
    artifactsPublicPaths: [],
    nextCall: null,
  };
}

/** Every node of the DAG is done: nothing to send. */
export function completeResult(
  session: SessionContext,
  batchId: string,
  analysis: DagAnalysis,
  dagPath: string,
): CommandResult {
  return {
    data: {
      ...idleEnvelope(batchId, analysis, dagPath),
      complete: true,
      projectRoot: session.project.root,
      instructions: ["Every node of this DAG is done; nothing was dispatched."],
    },
    nextActions: [statusCommand(session, batchId)],
    human: `every node of the DAG in batch ${batchId} is done; nothing to dispatch`,
  };
}

/** Every node is out and some still run: nothing left to send, say who is still working. */
export function drainedResult(
  session: SessionContext,
  batchId: string,
  analysis: DagAnalysis,
  dagPath: string,
  decision: Extract<Decision, { kind: "wait" }>,
): CommandResult {
  const waiting = waitingRows(session.project, analysis, decision.waiting);
  return {
    data: {
      ...idleEnvelope(batchId, analysis, dagPath),
      complete: false,
      waiting,
      projectRoot: session.project.root,
      instructions: [
        `Every node is dispatched; nothing is left to send. Still running: ${
          waitingList(waiting)
        }.`,
        "Finalize each sub-agent when it returns.",
      ],
    },
    nextActions: [statusCommand(session, batchId)],
    human:
      `every node of the DAG in batch ${batchId} is dispatched; ${waiting.length} still running`,
  };
}
