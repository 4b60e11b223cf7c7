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
