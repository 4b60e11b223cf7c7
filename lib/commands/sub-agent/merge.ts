import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { PeaksError, usageError } from "../../infra/errors.ts";
import { displayPath } from "../../workspace/paths.ts";
import { type Project, resolveProject } from "../../workspace/project.ts";
import { readRecord, recordNotFound } from "../../record/record.ts";
import type { DispatchRecord } from "../../record/record.ts";
import { readBatch } from "../../batch/batch.ts";
import { batchDagOf } from "../../dag/dag.ts";
import {
  batchSlices,
  passOver,
  requirePlace,
  type SliceStep,
  withSliceLock,
} from "../../slice/merge.ts";
import { notInConflict, type Resolution, resolveConflict } from "../../slice/resolve.ts";
import type { Warning } from "../../infra/errors.ts";
import { peaksLine } from "../../infra/shell.ts";
import { resolveRecordFlag } from "../../record/record_flag.ts";
import { sliceConflict } from "../../slice/finalize.ts";

export default defineCommand({
  name: "sub-agent merge",
  description:
    "Decides or retries the merge of an isolated slice (a DAG node with isolation: worktree). Without a choice " +
    "it runs the merge pass of the slice's batch again (in DAG order; it also finishes a merge a killed peaks " +
    "left). For a slice in conflict (SLICE_CONFLICT): --keep main leaves the main tree as it is and drops the " +
    "slice's change; --keep slice takes the slice's version of the conflicting files, then the rest of its " +
    "patch; --redo drops its worktree and lets the next --from-dag call send the node out again on top of the " +
    "main tree as it is now. The refused patch stays where it was saved whatever the choice.",
  flags: {
    record: flag.string("The slice's dispatch record.", {
      placeholder: "<path>",
      required: true,
      max: 4096,
    }),
    keep: flag.enum(["main", "slice"], "Which side wins a conflict."),
    redo: flag.boolean("Send the node out again on top of the current main tree."),
  },
  examples: [
    "peaks sub-agent merge --record .peaks/_sub_agents/<sid>/dispatch-<…>.json --keep main --json",
    "peaks sub-agent merge --record .peaks/_sub_agents/<sid>/dispatch-<…>.json --redo --json",
  ],
  exitNotes: ["3  SLICE_CONFLICT: the slice (or one after it) still does not apply"],
  async run({ flags }, ctx) {
    if (flags.keep !== undefined && flags.redo) {
      throw usageError("CONFLICTING_FLAGS", "Choose one of --keep main, --keep slice and --redo.", {
        data: { flags: ["keep", "redo"] },
      });
    }
    const choice: Resolution | undefined = flags.redo
      ? "redo"
      : flags.keep === "main"
      ? "keep-main"
      : flags.keep === "slice"
      ? "keep-slice"
      : undefined;
    const project = await resolveProject(ctx);
    const target = await resolveRecordFlag(ctx, project, flags.record);
    const place = await requirePlace(project);
    const warnings: Warning[] = [];
    const now = () => ctx.now();
    const shown = displayPath(project.root, target.path);
    const { record, steps } = await withSliceLock(project, async () => {
      const record = await readRecord(target.path);
      if (!record) throw recordNotFound(project, target.path);
      if (!record.worktree) throw notASlice(shown);
      const cx = { project, place, now, warnings };
      if (choice) {
        const entry = { path: target.path, record: { ...record, worktree: record.worktree } };
        if (record.worktree.state !== "conflict") throw notInConflict(entry, shown);
        await resolveConflict(cx, entry, choice);
      }
      const entries = await batchSlices(project, target.sessionId, record.batchId);
      return { record, steps: await passOver(cx, entries) };
    });
    const mine = steps.find((s) => s.recordPath === shown) ?? null;
    const data: Record<string, unknown> = {
      projectRoot: project.root,
      recordPath: shown,
      choice: choice ?? null,
      slice: mine,
      slices: steps,
    };
    const refusal = sliceConflict(project, steps, choice ? [] : [shown], data);
    if (refusal) throw refusal;
    // Once no slice is in conflict, the fan-out goes on: the same --from-dag call sends the node
    // out again (--redo) or the next level, while the DAG has nodes not yet dispatched.
    const next = await continueCall(project, target.sessionId, record, choice === "redo");
    return {
      data,
      warnings,
      nextActions: next ? [next] : [],
      human: humanLines(shown, choice, steps),
    };
  },
});

function notASlice(shown: string): PeaksError {
  return new PeaksError(
    "NOT_A_SLICE",
    `${shown} has no worktree: only a DAG node with "isolation": "worktree" is merged back.`,
    { data: { recordPath: shown } },
  );
}

/**
 * The `--from-dag` call that goes on with the slice's DAG (with the record's mode and host): after
 * --redo it sends the node out again; otherwise it sends the next level, when one is left.
 */
async function continueCall(
  project: Project,
  sid: string,
  record: DispatchRecord,
  redo: boolean,
): Promise<string | null> {
  const batch = await readBatch(project, sid, record.batchId).catch(() => undefined);
  const dag = batch ? batchDagOf(batch) : null;
  if (!dag) return null;
  if (!redo && new Set(dag.dispatched.map((row) => row.node)).size >= dag.nodes) return null;
  const mode = record.mode === "detached"
    ? ["--mode", "detached", ...(record.vendor ? ["--vendor", record.vendor] : [])]
    : ["--ide", record.ide];
  return peaksLine(project.root, [
    "sub-agent",
    "dispatch",
    "--from-dag",
    dag.source,
    "--batch-id",
    record.batchId,
    ...(record.requestIdSource === "flag" ? ["--request-id", record.requestId] : []),
    "--session-id",
    sid,
    ...mode,
  ]);
}

function humanLines(shown: string, choice: Resolution | undefined, steps: SliceStep[]): string {
  return [
    `${choice ?? "merge pass"} for ${shown}`,
    ...steps.map((s) =>
      `  ${s.node ?? s.role} ${s.state}${s.action === "unchanged" ? "" : ` (${s.action})`}`
    ),
  ].join("\n");
}
