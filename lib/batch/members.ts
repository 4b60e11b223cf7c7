/**
 * Reading a batch's members from disk (the batch file, else the session's
 * records) for `sub-agent status`, `watch` and the status line.
 */
import type { Project } from "../workspace/project.ts";
import { readBatch } from "./batch.ts";
import { listRecords, readRecords } from "../record/record.ts";
import { type MemberView, memberView, unreadableView } from "./status_line.ts";

/**
 * A batch's members in dispatch order. The batch file names them; when it is
 * missing or broken, the session's records carrying the batch id stand in.
 */
export async function readBatchMembers(
  project: Project,
  sid: string,
  batchId: string,
  now: Date,
): Promise<MemberView[]> {
  const batch = await readBatch(project, sid, batchId).catch(() => undefined);
  if (!batch) {
    const listing = await listRecords(project, sid);
    return listing.records.filter((e) => e.record.batchId === batchId)
      .map((e) => memberView(e.path, e.record, now))
      .sort((a, b) => (a.n ?? 0) - (b.n ?? 0));
  }
  const paths = batch.members.map((m) => project.layout.dispatchRecord(sid, m.record));
  const listing = await readRecords(paths);
  const byPath = new Map(listing.records.map((e) => [e.path, e.record]));
  return batch.members.map((member, i) => {
    const record = byPath.get(paths[i]);
    return record
      ? memberView(paths[i], record, now)
      : unreadableView(paths[i], member.role, member.n);
  });
}
