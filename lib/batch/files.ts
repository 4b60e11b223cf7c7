/** Finding a session's batch files (no reading, no zod: the status line uses it too). */
import { listDir } from "../infra/fs/files.ts";
import { compareText, isValidId } from "../infra/ids.ts";
import type { Project } from "../workspace/project.ts";

export interface BatchFileInfo {
  batchId: string;
  path: string;
  mtimeMs: number;
}

/** The session's batch files, most recently changed first. */
export async function listBatchFiles(project: Project, sid: string): Promise<BatchFileInfo[]> {
  const dir = project.layout.agentsDir(sid);
  const found: BatchFileInfo[] = [];
  for (const entry of await listDir(dir)) {
    const match = /^batch-(.+)\.json$/.exec(entry.name);
    if (!entry.isFile || !match || !isValidId(match[1])) continue;
    found.push({ batchId: match[1], path: project.layout.batch(sid, match[1]), mtimeMs: 0 });
  }
  for (const info of found) {
    try {
      info.mtimeMs = Deno.lstatSync(info.path).mtime?.getTime() ?? 0;
    } catch {
      info.mtimeMs = 0;
    }
  }
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs || compareText(b.batchId, a.batchId));
}
