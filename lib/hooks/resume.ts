/**
 * The resume line a session-start hook adds to the orchestrator's context: the open request,
 * its workflow step, the live and stale sub-agents, and the next action — the facts the
 * workflow's resume path gives, in at most RESUME_MAX_BYTES.
 */
import type { Project } from "../workspace/project.ts";
import { listRecords } from "../record/record.ts";
import { liveness } from "../record/liveness.ts";
import { listDir } from "../infra/fs/files.ts";
import { isValidId } from "../infra/ids.ts";
import { nextStep } from "../workflow/next.ts";

export const RESUME_MAX_BYTES = 300;

/** Cuts text to `max` UTF-8 bytes, ending in "…" when cut. */
export function clip(text: string, max = RESUME_MAX_BYTES): string {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= max) return text;
  let out = "";
  for (const char of text) {
    if (encoder.encode(`${out}${char}…`).length > max) break;
    out += char;
  }
  return `${out}…`;
}

async function newestPrd(project: Project, sid: string): Promise<string | undefined> {
  const names = (await listDir(project.layout.requestsDir(sid, "prd")))
    .filter((e) => e.isFile && e.name.endsWith(".md") && isValidId(e.name.slice(0, -3)))
    .map((e) => e.name.slice(0, -3)).sort();
  return names.at(-1);
}

export async function resumeLine(project: Project, sid: string, now: Date): Promise<string> {
  const { records } = await listRecords(project, sid);
  let live = 0;
  let stale = 0;
  for (const { record } of records) {
    const state = liveness(record, now);
    if (state === "alive" || state === "pending") live++;
    else if (state === "stale" || state === "never-started") stale++;
  }
  const rid = records[0]?.record.requestId ?? await newestPrd(project, sid);
  const agents = `sub-agents: ${live} live, ${stale} stale`;
  if (!rid) return clip(`peaks: session ${sid}, no open request; ${agents}.`);
  const step = await nextStep({ project, sessionId: sid, sessionSource: "binding" }, rid)
    .catch(() => undefined);
  const where = step ? ` at ${step.phase.gate} (${step.phase.role})` : "";
  const next = step?.command
    ? `next: ${step.command}`
    : step?.waitingFor
    ? `waiting for ${step.waitingFor}`
    : "next: peaks request show " + rid;
  return clip(`peaks: request ${rid}${where}; ${agents}; ${next}`);
}
