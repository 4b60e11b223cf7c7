/**
 * Why a `--from-dag` call sends nothing: the level is still running, a node
 * failed, another graph owns the batch id, a concurrent call was first, the
 * file is too large, or the IDE has no in-process sub-agent tool. Each says
 * who is involved and what to run next.
 */
import type { Batch } from "../batch/batch.ts";
import { type BatchDag, batchDagOf, DAG_MAX_BYTES, type DagAnalysis } from "../dag/dag.ts";
import type { NodeProgress } from "../dag/progress.ts";
import { gateError, PeaksError } from "../infra/errors.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import type { SessionContext } from "../session/session.ts";
import type { Decision } from "./_schedule.ts";
import { peaksLine } from "../infra/shell.ts";

/** `sub-agent status` for the batch, with the session when it did not come from the binding. */
export function statusCommand(session: SessionContext, batchId: string): string {
  const sid = session.sessionSource === "binding" ? [] : ["--session-id", session.sessionId];
  return peaksLine(session.project.root, ["sub-agent", "status", "--batch", batchId, ...sid]);
}

function row(project: Project, analysis: DagAnalysis, p: NodeProgress) {
  return {
    nodeId: p.node,
    role: analysis.byId.get(p.node)?.role ?? null,
    level: analysis.levelOf.get(p.node) ?? null,
    status: p.status,
    progress: p.progress,
    lastBeatAgeSec: p.lastBeatAgeSec,
    recordPath: p.recordPath ? displayPath(project.root, p.recordPath) : null,
  };
}

export function waitingRows(project: Project, analysis: DagAnalysis, waiting: NodeProgress[]) {
  return waiting.map((p) => row(project, analysis, p));
}

export function waitingList(rows: ReturnType<typeof waitingRows>): string {
  return rows.map((w) => `${w.nodeId} (${w.role}, ${w.status}, ${w.recordPath})`).join("; ");
}

/**
 * The batch's DAG section when the batch may take this graph: none yet on a
 * fresh batch, the same hash on an existing one. Anything else refuses.
 */
export function batchConflict(
  project: Project,
  batchId: string,
  batch: Batch,
  hash: string,
  dagPath: string,
): BatchDag | null {
  const section = batchDagOf(batch);
  const path = displayPath(project.root, project.layout.batch(batch.sessionId, batchId));
  if (section === undefined) {
    throw new PeaksError(
      "RECORD_UNREADABLE",
      `The batch file ${path} has a malformed dag section; start the DAG under a new --batch-id.`,
      { data: { path, batchId } },
    );
  }
  if (section === null) {
    if (batch.members.length === 0) return null;
    throw gateError(
      "BATCH_NOT_A_DAG",
      `Batch ${batchId} was started by single dispatches, not by --from-dag; run the DAG under a new --batch-id (or omit it).`,
      { data: { batchId, path } },
    );
  }
  if (section.hash !== hash) {
    throw gateError(
      "DAG_MISMATCH",
      `Batch ${batchId} runs another DAG (${section.source}, sha256 ${
        section.hash.slice(0, 12)
      }); ${dagPath} is sha256 ${
        hash.slice(0, 12)
      }. Continue that DAG unchanged, or start this one under a new --batch-id.`,
      { data: { batchId, expectedHash: section.hash, hash, source: section.source } },
    );
  }
  return section;
}

export function levelNotReady(
  session: SessionContext,
  batchId: string,
  analysis: DagAnalysis,
  decision: Extract<Decision, { kind: "wait" }> & { level: number },
): PeaksError {
  const waiting = waitingRows(session.project, analysis, decision.waiting);
  const stuck = decision.waiting.filter((p) => p.state === "stuck");
  return gateError(
    "LEVEL_NOT_READY",
    `Level ${decision.level} of ${analysis.levels.length} is not ready: ${waiting.length} member(s) of batch ${batchId} are not done yet: ${
      waitingList(waiting)
    }.`,
    {
      data: {
        batchId,
        level: decision.level,
        levelsTotal: analysis.levels.length,
        remainingLevels: decision.remainingLevels,
        waiting,
      },
      nextActions: [statusCommand(session, batchId)],
      instructions: [
        "Wait until every listed sub-agent has returned, finalize each one (peaks sub-agent finalize --record <its record> --outcome done --result-json '<its return JSON>'), then run this same command again.",
        ...(stuck.length
          ? [
            `${
              stuck.map((p) => p.node).join(", ")
            } look stuck (stale, never started or unreadable): if their sub-agents are gone, finalize them with --outcome failed; the DAG then stops at them.`,
          ]
          : []),
      ],
    },
  );
}

export function dagBlocked(
  session: SessionContext,
  batchId: string,
  analysis: DagAnalysis,
  decision: Extract<Decision, { kind: "blocked" }>,
): PeaksError {
  const failed = decision.failed.map((p) => ({
    ...row(session.project, analysis, p),
    error: p.error,
  }));
  return gateError(
    "DAG_BLOCKED",
    `The DAG in batch ${batchId} cannot go on: ${
      failed.map((f) => `${f.nodeId} (${f.role}) ended ${f.status}`).join(", ")
    }${decision.blocked.length ? `; waiting on it: ${decision.blocked.join(", ")}` : ""}.`,
    {
      data: { batchId, failed, blocked: decision.blocked },
      nextActions: [statusCommand(session, batchId)],
      instructions: [
        "A failed node stops the fan-out: ask the user how to go on.",
        `To retry a node, dispatch it again into this batch: peaks sub-agent dispatch <role> --graph-node <node id> --batch-id ${batchId} --prompt-file <its prompt>; the scheduler follows each node's newest record.`,
        "Or start the whole DAG again under a new --batch-id.",
      ],
    },
  );
}

export function alreadyDispatched(
  session: SessionContext,
  batchId: string,
  nodes: string[],
): PeaksError {
  return gateError(
    "WAVE_ALREADY_DISPATCHED",
    `Another call dispatched ${
      nodes.join(", ")
    } into batch ${batchId} a moment ago; nothing was sent twice.`,
    { data: { batchId, nodes }, nextActions: [statusCommand(session, batchId)] },
  );
}

export function dagTooLargeFile(shown: string, size: number): PeaksError {
  return gateError(
    "DAG_TOO_LARGE",
    `The DAG file ${shown} is ${size} bytes; peaks reads at most ${DAG_MAX_BYTES}. Split the work into several DAGs.`,
    { data: { path: shown, bytes: size, cap: DAG_MAX_BYTES } },
  );
}

/**
 * The host has no in-process sub-agent tool: the same DAG call with
 * `--mode detached --vendor <installed vendor>` when one is installed.
 */
export function dagIdeNotSupported(
  ide: string,
  analysis: DagAnalysis,
  detachedCall: string | null,
): PeaksError {
  return gateError(
    "IDE_NOT_SUPPORTED",
    `peaks sub-agent dispatch --from-dag cannot run in-process in ${ide}: it has no sub-agent tool.`,
    {
      data: { ide, levels: analysis.levels },
      nextActions: detachedCall ? [detachedCall] : [],
      instructions: [
        detachedCall
          ? "Run the command in nextActions: it starts each node of the level as a separate vendor process."
          : "No vendor CLI is on PATH for a detached run; install one to run the nodes as separate processes.",
        `Or run the nodes' work inline, level by level in the order of data.levels.`,
      ],
    },
  );
}
