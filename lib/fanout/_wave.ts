/**
 * One wave of a `--from-dag` call: each node through the single-dispatch
 * pipeline (compose, prompt budget, record), then every record joins the
 * batch under one lock, with the DAG's own section of the batch file.
 */
import { readRoleSection, type RoleSection } from "../dispatch/role_section.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import type { DagNode } from "../dag/dag.ts";
import { PeaksError, type Warning } from "../infra/errors.ts";
import { guardPath } from "../infra/fs/guard.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { assertRole, recordFileOf } from "../record/names.ts";
import { usageError } from "../infra/errors.ts";
import { promptBudgetStep } from "../dispatch/budget_step.ts";
import { readTuning, type TuningFor } from "../dispatch/role_tuning.ts";
import { PROMPT_SAFETY_CAP } from "../dispatch/prompt_input.ts";
import {
  type IsolationPlan,
  type PreparedDispatch,
  prepareDispatch,
  writeDispatches,
  type WrittenDispatch,
} from "../dispatch/new_record.ts";
import {
  declareArtifactsLazily,
  generatedRequestId,
  readSurroundings,
  runtimeArgs,
  type Surroundings,
} from "../dispatch/runtime_args.ts";
import type { DagDetached } from "./_detached.ts";
import { rdReads } from "../dispatch/workflow_task.ts";
import { alreadyDispatched, batchConflict } from "./_refusals.ts";
import type { DagCall } from "./_call.ts";
import { isoTime } from "../infra/ids.ts";

export interface PreparedWave {
  prepared: PreparedDispatch[];
  /** What each request's surroundings said, once per request. */
  surroundings: Surroundings[];
  /** What reading the per-role preferences said. */
  warnings: Warning[];
}

/** Every node of the wave composed and budgeted; a refused prompt refuses the whole wave. */
export async function prepareWave(
  ctx: Ctx,
  call: DagCall,
  nodes: string[],
  detached: DagDetached | undefined,
  now: Date,
  isolation?: (node: string, requestId: string) => IsolationPlan | undefined,
): Promise<PreparedWave> {
  const { project } = call.session;
  const around = new Map<string, Promise<Surroundings>>();
  const gate = promptBudgetStep(
    ctx,
    project,
    detached?.budgetIde ?? call.detected.ide,
    call.flags,
    () => ({
      words: [...call.callWords, ...(detached?.modeWords ?? [])],
      save: () => Promise.resolve(),
    }),
  );
  const step = detached ? detached.cap(gate) : gate;
  const warnings: Warning[] = [];
  const tuning = await readTuning(project, warnings);
  const prepared = await Promise.all(nodes.map(async (id) => {
    const node = call.analysis.byId.get(id)!;
    const requestId = node.requestId ?? call.rid ?? generatedRequestId(call.batchId);
    if (!around.has(requestId)) {
      around.set(requestId, readSurroundings(ctx, project, call.session.sessionId, requestId));
    }
    try {
      const plan = isolation?.(node.id, requestId);
      return await prepareNode(call, node, requestId, around.get(requestId)!, {
        detached,
        now,
        step,
        section: readRoleSection(ctx, node.role, { slice: plan !== undefined }),
        isolation: plan,
        tuning,
        warnings,
      });
    } catch (error) {
      // A refused prompt refuses the whole wave; say which node it was.
      if (error instanceof PeaksError) error.data.node = node.id;
      throw error;
    }
  }));
  return { prepared, surroundings: await Promise.all(around.values()), warnings };
}

async function prepareNode(
  call: DagCall,
  node: DagNode,
  requestId: string,
  surroundings: Promise<Surroundings>,
  wave: {
    detached: DagDetached | undefined;
    now: Date;
    step: Parameters<typeof prepareDispatch>[1];
    /** The role's skill section for its brief. */
    section: Promise<RoleSection | null>;
    isolation?: IsolationPlan;
    tuning?: TuningFor;
    /** The wave's warnings (a role choice a detached vendor cannot take). */
    warnings: Warning[];
  },
): Promise<PreparedDispatch> {
  const { project, sessionId } = call.session;
  const role = assertRole(node.role);
  const [text, around, artifacts, read] = await Promise.all([
    nodePrompt(project, node),
    surroundings,
    declareArtifactsLazily(
      project,
      { sessionId, requestId, role, flag: "from-dag", at: isoTime(wave.now) },
      node.artifacts ?? [],
      (raw) => guardPath(project.root, project.root, raw, { flag: "from-dag" }),
    ),
    // An RD slice reads its request's files from the main project, by absolute path.
    wave.isolation && role.split("-")[0] === "rd"
      ? rdReads(project, sessionId, requestId)
      : Promise.resolve([]),
  ]);
  const runtime = runtimeArgs(project, {
    sessionId,
    requestId,
    requestIdGenerated: node.requestId === undefined && call.rid === undefined,
    batchId: call.batchId,
    role,
    ide: call.detected.ide.id,
    heartbeatIntervalSec: call.flags["heartbeat-interval"],
    declaredArtifacts: artifacts.declared,
    ...(wave.isolation ? { slice: { node: node.id, read } } : {}),
  }, around);
  runtime.roleSection = await wave.section;
  return await prepareDispatch({
    project,
    runtime,
    ide: call.detected.ide,
    brief: call.flags.brief,
    callerPrompt: text,
    artifactMetas: artifacts.metas,
    git: await call.gitHead,
    graphNodeId: node.id,
    workflowId: call.workflowId,
    now: wave.now,
    detached: wave.detached?.plan(runtime, wave.tuning?.(role), wave.warnings),
    isolation: wave.isolation,
    tuning: wave.tuning?.(role),
  }, wave.step);
}

/** The records of the wave, written and joined to the batch with the DAG's section. */
export function writeWave(
  call: DagCall,
  prepared: PreparedDispatch[],
  nodes: string[],
  now: Date,
  seen: ReadonlySet<string> = new Set(),
): Promise<WrittenDispatch[]> {
  const { session, batchId, hash, dagPath, analysis } = call;
  return writeDispatches(prepared, {
    annotate: (batch) => {
      const current = batchConflict(session.project, batchId, batch, hash, dagPath);
      const section = current ?? {
        hash,
        source: dagPath,
        nodes: analysis.dag.nodes.length,
        levels: analysis.levels.length,
        dispatched: [],
      };
      const taken = section.dispatched.filter((d) => nodes.includes(d.node) && !seen.has(d.record));
      if (taken.length) throw alreadyDispatched(session, batchId, taken.map((d) => d.node));
      (batch as Record<string, unknown>).dag = section;
    },
    onCreated: (batch, done, index) => {
      const section = (batch as Record<string, unknown>).dag as {
        dispatched: { node: string; record: string; n: number; at: string }[];
      };
      section.dispatched.push({
        node: nodes[index],
        record: recordFileOf(done.path),
        n: done.record.dispatchedInBatch,
        at: isoTime(now),
      });
    },
  });
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
