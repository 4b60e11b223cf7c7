/** What `status` and `watch` share: which batch, which label, and the rows shown for it. */
import type { Ctx } from "../infra/command/ctx.ts";
import { batchCounts, batchStatusLine, type MemberView } from "./status_line.ts";
import { listBatchFiles } from "./batch.ts";
import { assertId } from "../infra/ids.ts";
import { displayPath } from "../workspace/paths.ts";
import { readPresence } from "../presence/presence.ts";
import { callerIdFromEnv } from "../presence/caller.ts";
import type { Project } from "../workspace/project.ts";
import { PeaksError } from "../infra/errors.ts";
import { peaksLine } from "../infra/shell.ts";
import { worktreeRow } from "../record/worktree.ts";

export function batchNotFound(project: Project, sid: string, batchId: string): PeaksError {
  return new PeaksError(
    "BATCH_NOT_FOUND",
    `Session ${sid} has no batch ${batchId} (no batch file and no record carrying it).`,
    {
      data: { batchId, sessionId: sid },
      nextActions: [
        peaksLine(project.root, ["sub-agent", "list", "--session-id", sid]),
      ],
    },
  );
}

/** --batch, else the batch that most recently gained a member. */
export async function chooseBatch(
  project: Project,
  sid: string,
  explicit: string | undefined,
): Promise<string | undefined> {
  return (await chooseBatchOf(project, sid, explicit)).batchId;
}

/** chooseBatch, also saying how many batches the session has (0 when --batch named one). */
export async function chooseBatchOf(
  project: Project,
  sid: string,
  explicit: string | undefined,
): Promise<{ batchId: string | undefined; batches: number }> {
  if (explicit !== undefined) return { batchId: assertId(explicit, "--batch"), batches: 0 };
  const files = await listBatchFiles(project, sid);
  return { batchId: files[0]?.batchId, batches: files.length };
}

/** --label, else the active skill from presence, else "peaks". */
export async function chooseLabel(
  ctx: Ctx,
  project: Project,
  sid: string,
  explicit: string | undefined,
): Promise<string> {
  if (explicit !== undefined) return explicit;
  try {
    const { presence } = await readPresence(project, sid, await callerIdFromEnv(ctx.env));
    return presence?.skill ?? "peaks";
  } catch {
    return "peaks";
  }
}

export function memberRows(project: Project, members: MemberView[]) {
  return members.map((m) => ({
    n: m.n,
    role: m.role,
    status: m.status,
    progress: m.progress,
    lastBeatAgeSec: m.beatAgeSec,
    recordPath: displayPath(project.root, m.recordPath),
    ...(m.record?.worktree ? { worktree: worktreeRow(project.root, m.record.worktree) } : {}),
  }));
}

export function statusData(project: Project, label: string, members: MemberView[]) {
  return {
    line: batchStatusLine(label, members),
    counts: batchCounts(members),
    members: memberRows(project, members),
  };
}
