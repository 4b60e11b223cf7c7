/**
 * RD's own work on a request, which its hand-off to QA needs besides the code review: an RD
 * sub-agent of this request (the implementation, or its slices) finalized as done, and a product
 * change. The change is what those records name (the files their return JSON lists, the files
 * they registered, the files of a slice peaks merged back: a named file outside `.peaks/` counts
 * when git shows it changed since the record's sub-agent started; outside a checkout, when it
 * exists), else what the working tree shows written since the dispatch, as finalize's audit does. A file another request
 * changed is never this request's work unless this request's RD names it; swarm members (role
 * `rd-planning`) plan and change nothing, so they are not RD's work here.
 */
import { isAbsolute, join } from "../infra/std.ts";
import { changedSince, workingTreeChanges } from "../infra/git.ts";
import { reviewChanges } from "../finalize/changes.ts";
import { porcelainPath } from "../workspace/own_files.ts";
import { exists } from "../infra/fs/files.ts";
import { climbsOut } from "../infra/fs/guard.ts";
import { displayPath, PEAKS_DIR } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { type DispatchRecord, readRecords, recordFileNames } from "../record/record.ts";
import { isTerminal } from "../state/record.ts";
import { compareText } from "../infra/ids.ts";

export type RdWorkKind = "no-rd-record" | "rd-open" | "rd-not-done" | "no-product-change";

export interface RdWorkProblem {
  kind: RdWorkKind;
  message: string;
  /** Project-relative paths of the records concerned. */
  records: string[];
}

export interface RdWork {
  /** What is missing; undefined when RD's work is there. */
  problem?: RdWorkProblem;
  /** The changed product files the finalized records name (project-relative). */
  productFiles: string[];
}

/** The RD sub-agents of `rid` (role `rd`: the implementation and its slices), newest first. */
async function rdRecords(project: Project, sid: string, rid: string) {
  const prefix = `dispatch-${rid}-`;
  const names = (await recordFileNames(project, sid)).filter((n) => n.startsWith(prefix));
  const listing = await readRecords(names.map((n) => project.layout.dispatchRecord(sid, n)));
  return listing.records
    .filter((e) => e.record.requestId === rid && e.record.role === "rd")
    .sort((a, b) => compareText(b.record.createdAt, a.record.createdAt));
}

const normalise = (path: string) => path.replaceAll("\\", "/").replace(/^(\.\/)+/, "");

/** A project-relative path outside `.peaks/`, or undefined. */
function productPath(raw: string): string | undefined {
  const path = normalise(raw);
  if (!path || isAbsolute(path) || climbsOut(path)) return undefined;
  if (path === PEAKS_DIR || path.startsWith(`${PEAKS_DIR}/`)) return undefined;
  return path;
}

/** The product files a record names and the files a merged slice brought back. */
function namedFiles(record: DispatchRecord): { named: string[]; merged: string[] } {
  const named = [
    ...(record.result?.artefacts ?? []),
    ...record.declaredArtifacts,
    ...record.artifactMetas.map((m) => m.path),
  ].map(productPath).filter((p): p is string => p !== undefined);
  const worktree = record.worktree;
  const merged = worktree?.state === "merged"
    ? worktree.files.map(productPath).filter((p): p is string => p !== undefined)
    : [];
  return { named: [...new Set(named)], merged };
}

/**
 * The working tree's changes written since the sub-agent was dispatched, outside `.peaks/` and
 * peaks' own files: the change finalize's audit shows as the sub-agent's (the return contract
 * summarises product files in `diffSummary`, it does not list them).
 */
async function touchedSince(project: Project, record: DispatchRecord): Promise<string[]> {
  const since = Date.parse(record.createdAt);
  if (!Number.isFinite(since)) return [];
  const review = await reviewChanges(project.root, await workingTreeChanges(project.root), since);
  return (review.changes ?? []).filter((line) => !line.startsWith("... ")).map(porcelainPath);
}

async function changedFiles(project: Project, record: DispatchRecord): Promise<string[]> {
  const { named, merged } = namedFiles(record);
  const changed = await changedSince(project.root, record.gitHead, named);
  if (changed !== undefined) {
    const found = [...merged, ...changed];
    return found.length ? found : await touchedSince(project, record);
  }
  const present = await Promise.all(
    named.map(async (p) => (await exists(join(project.root, p))) ? p : undefined),
  );
  return [...merged, ...present.filter((p): p is string => p !== undefined)];
}

/** Checks RD's work on `rid`; with `since`, only sub-agents dispatched after it count (a rework round). */
export async function checkRdWork(
  project: Project,
  sid: string,
  rid: string,
  since?: { at: string; event: string },
): Promise<RdWork> {
  const all = await rdRecords(project, sid, rid);
  const entries = since ? all.filter((e) => e.record.createdAt >= since.at) : all;
  const shown = (list: typeof entries) => list.map((e) => displayPath(project.root, e.path));
  const after = since ? ` since ${since.event}` : "";
  if (!entries.length) {
    return {
      productFiles: [],
      problem: {
        kind: "no-rd-record",
        message: `RD has not worked on ${rid}${after}: no rd sub-agent was dispatched for it.`,
        records: [],
      },
    };
  }
  const open = entries.filter((e) => !isTerminal(e.record.status));
  if (open.length) {
    return {
      productFiles: [],
      problem: {
        kind: "rd-open",
        message: `RD's sub-agent for ${rid} is not finalized yet (${open.length} open record(s)).`,
        records: shown(open),
      },
    };
  }
  const done = entries.filter((e) =>
    e.record.status === "done" && e.record.result?.status !== "blocked" &&
    e.record.result?.status !== "skipped"
  );
  if (!done.length) {
    return {
      productFiles: [],
      problem: {
        kind: "rd-not-done",
        message:
          `No RD sub-agent for ${rid}${after} finished its work (failed, cancelled or blocked).`,
        records: shown(entries),
      },
    };
  }
  const files = new Set<string>();
  for (const e of done) for (const f of await changedFiles(project, e.record)) files.add(f);
  if (files.size) return { productFiles: [...files].sort() };
  return {
    productFiles: [],
    problem: {
      kind: "no-product-change",
      message:
        `RD's finalized work on ${rid}${after} changed no product file: no file outside ${PEAKS_DIR}/ that it names or wrote after its dispatch differs from where it started.`,
      records: shown(done),
    },
  };
}
