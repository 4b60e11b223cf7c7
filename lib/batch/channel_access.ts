/** What share and shared-read both need: the batch must exist before its channel is used. */
import type { Project } from "../workspace/project.ts";
import { assertId } from "../infra/ids.ts";
import { batchNotFound } from "./view.ts";

export function requireBatch(project: Project, sid: string, raw: string): string {
  const batchId = assertId(raw, "--batch");
  try {
    Deno.statSync(project.layout.batch(sid, batchId));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw batchNotFound(project, sid, batchId);
    throw error;
  }
  return batchId;
}

/** A `--key` glob (`*`, `?`) as an anchored regular expression. */
export function keyGlob(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${source}$`);
}
