/**
 * FANOUT_REQUIRED: a single dispatch for a request whose planned DAG
 * (`sc/slice-dag-<rid>.json`) has two or more nodes ready to go at once. Parallel
 * leaves must go out in one `--from-dag` call, not one after another. The
 * DAG module is loaded only when the file exists, so plain dispatches pay
 * one failed read.
 */
import { readBatch } from "../batch/batch.ts";
import { readBoundedText } from "../infra/fs/files.ts";
import type { Warning } from "../infra/errors.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { peaksLine } from "../infra/shell.ts";

export async function fanoutWarning(
  project: Project,
  sid: string,
  rid: string,
  sessionFromBinding: boolean,
): Promise<Warning | undefined> {
  const path = project.layout.sliceDag(sid, rid);
  // A missing, oversized or non-regular DAG file is the plan's business, not this warning's.
  const text = await readBoundedText(path).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const { batchDagOf, parseDag } = await import("../dag/dag.ts");
    const shown = displayPath(project.root, path);
    const analysis = await parseDag(text, shown);
    const { dag } = analysis;
    const batch = dag.batchId ? await readBatch(project, sid, dag.batchId) : undefined;
    const dispatched = new Set((batch ? batchDagOf(batch) : null)?.dispatched.map((d) => d.node));
    const ready = dag.nodes.filter((node) => {
      const nodeRid = node.requestId ?? dag.rid;
      return (nodeRid === undefined || nodeRid === rid) && !dispatched.has(node.id) &&
        analysis.predecessors.get(node.id)!.every((pred) => dispatched.has(pred));
    }).map((node) => node.id);
    if (ready.length < 2) return undefined;
    const command = peaksLine(project.root, [
      "sub-agent",
      "dispatch",
      "--from-dag",
      shown,
      ...(dag.batchId ? ["--batch-id", dag.batchId] : []),
      ...(sessionFromBinding ? [] : ["--session-id", sid]),
    ]);
    return {
      code: "FANOUT_REQUIRED",
      message: `${
        ready.join(", ")
      } can run now: send them in one call with this warning's command.`,
      command,
    };
  } catch {
    // A broken DAG file is reported by --from-dag and swarm plan, not by every dispatch.
    return undefined;
  }
}

/**
 * A plain `dispatch rd` for a request whose RD work is not ready for one implementer:
 * RD_SPEC_NOT_LOCKED while the RD request is still a draft (its plan is not locked), and
 * SLICES_PENDING while RD planning's slice DAG (`rd/slices-<rid>.json`) has slices not yet
 * merged, since those go out together through `swarm slices` and `--from-dag`.
 */
export async function rdDispatchWarning(
  project: Project,
  sid: string,
  rid: string,
  sessionFromBinding: boolean,
): Promise<Warning | undefined> {
  const session = sessionFromBinding ? [] : ["--session-id", sid];
  const { readRequest } = await import("../request/file.ts");
  const rd = await readRequest(project, sid, "rd", rid).catch(() => undefined);
  if (rd?.meta.state === "draft") {
    return {
      code: "RD_SPEC_NOT_LOCKED",
      message:
        `The RD request ${rid} is still a draft: lock its plan before RD implements (this warning's command).`,
      command: peaksLine(project.root, [
        "request",
        "transition",
        rid,
        "--role",
        "rd",
        "--state",
        "spec-locked",
        ...session,
      ]),
    };
  }
  const { pendingSlicePlan } = await import("../workflow/slices.ts");
  const pending = await pendingSlicePlan(project, sid, rid, new Date()).catch(() => undefined);
  if (!pending) return undefined;
  return {
    code: "SLICES_PENDING",
    message: `RD planning split ${rid} into slices (${
      displayPath(project.root, pending.path)
    }) that are not all merged: send them with this warning's command, not one RD sub-agent.`,
    command: peaksLine(project.root, ["swarm", "slices", "--rid", rid, ...session]),
  };
}

/**
 * The checks a single dispatch for `rid` gets: a live copy of the role refuses (SUB_AGENT_LIVE)
 * unless the dispatch names its batch (a deliberate fan-out of one role, `liveCheckAt` null);
 * then the warning, RD's own first, then the planned DAG's.
 */
export async function dispatchWarning(
  project: Project,
  sid: string,
  rid: string,
  role: string,
  sessionFromBinding: boolean,
  liveCheckAt: Date | null,
): Promise<Warning | undefined> {
  if (liveCheckAt) {
    // Loaded only here: a dispatch into a batch it names lists no records.
    const { refuseLiveDuplicate } = await import("./live_check.ts");
    await refuseLiveDuplicate(project, sid, rid, role, liveCheckAt);
  }
  const rd = role === "rd"
    ? await rdDispatchWarning(project, sid, rid, sessionFromBinding)
    : undefined;
  return rd ?? await fanoutWarning(project, sid, rid, sessionFromBinding);
}

/**
 * What a dispatch checks before it writes a record: nothing for a DAG node or a dispatch without
 * a request; else `dispatchWarning`, the live-copy refusal skipped inside a named batch. The
 * promise is marked handled, so a refusal waits (unreported) until the dispatch awaits it.
 */
export function dispatchChecks(
  project: Project,
  sid: string,
  bound: boolean,
  checks: {
    rid: string | undefined;
    role: string;
    graphNodeId: string | null;
    givenBatch: string | undefined;
    now: Date;
  },
): Promise<Warning | undefined> {
  const { rid, role, graphNodeId, givenBatch, now } = checks;
  if (rid === undefined || graphNodeId !== null) return Promise.resolve(undefined);
  const out = dispatchWarning(project, sid, rid, role, bound, givenBatch ? null : now);
  out.catch(() => {});
  return out;
}
