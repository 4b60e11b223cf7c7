/**
 * What finalize does for isolated slices: learn where a host-made worktree
 * is (Claude Code names it as `worktreePath` in the notification that the
 * agent finished, and the sub-agent as `worktree` in its return JSON), then
 * settle each batch a finalized slice belongs to: merge in DAG order, remove
 * merged worktrees, and refuse (SLICE_CONFLICT, exit 3) when a patch overlaps.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError, type Warning } from "../infra/errors.ts";
import { guardPath } from "../infra/fs/guard.ts";
import type { Project } from "../workspace/project.ts";
import { type DispatchRecord, updateExistingRecord } from "../record/record.ts";
import { requirePlace, settleBatch, type SliceStep } from "./merge.ts";
import { repoWorktrees } from "./inventory.ts";
import { HOST_WORKTREES_DIR, type RepoPlace, repoPlace } from "./place.ts";
import { basename, dirname, join } from "../infra/std.ts";
import { conflictCommands } from "./commands.ts";
import { isoTime } from "../infra/ids.ts";

/**
 * `--worktree` is checked before anything is closed: it must name an existing
 * folder inside the repository (inside the project when there is no repository),
 * reached without leaving it through a link.
 */
export async function checkWorktreeFlag(ctx: Ctx, project: Project, raw: string): Promise<void> {
  const place = await repoPlace(project);
  await guardPath(place?.toplevel ?? project.root, ctx.cwd, raw, {
    flag: "worktree",
    mustExist: true,
  });
}

/**
 * A host slice's worktree path, from `--worktree` or the return JSON's
 * `worktree`: it must be one of the repository's worktrees, inside it.
 */
export async function attachHostWorktree(
  ctx: Ctx,
  project: Project,
  path: string,
  record: DispatchRecord,
  given: string | undefined,
): Promise<DispatchRecord> {
  const wt = record.worktree;
  const fromResult = typeof record.result?.worktree === "string"
    ? record.result.worktree
    : undefined;
  const raw = given ?? fromResult;
  if (!wt || wt.kind !== "host" || raw === undefined || wt.state !== "ready") return record;
  const place = await requirePlace(project);
  const lexical = await guardPath(place.toplevel, ctx.cwd, raw, {
    flag: "worktree",
    mustExist: true,
  });
  const real = await Deno.realPath(lexical);
  const listed = (await repoWorktrees(place)).find((w) => w.path === real);
  if (listed && !isHostMade(place, real, wt.path)) {
    throw new PeaksError(
      "WORKTREE_NOT_THE_SLICE",
      `${raw} is not the worktree the host made for this slice: only a folder directly under .claude/worktrees/ (the host's own, never peaks-…) is taken${
        wt.path ? `, and this record already names ${wt.path}` : ""
      }. Nothing was merged or removed.`,
      { exit: 2, data: { flag: "worktree", path: raw } },
    );
  }
  if (!listed || real === place.toplevel) {
    throw new PeaksError(
      "WORKTREE_NOT_FOUND",
      `--worktree ${raw} is not one of the repository's linked worktrees (git worktree list).`,
      { exit: 2, data: { flag: "worktree", path: raw } },
    );
  }
  const projectDir = place.projectRel ? `${real}/${place.projectRel}` : real;
  return await updateExistingRecord(project, path, (current) => {
    const at = isoTime(ctx.now());
    const next: DispatchRecord = {
      ...current,
      updatedAt: at,
      worktree: {
        ...current.worktree!,
        path: real,
        projectDir,
        branch: listed.branch,
        updatedAt: at,
      },
    };
    return { value: next, result: next };
  });
}

/**
 * A worktree the host made for a slice: directly in `.claude/worktrees/` of
 * the top level or of the project, not one of peaks' own roots there, and the
 * one the record names once it names one. A user's own linked worktrees are
 * none of these.
 */
function isHostMade(place: RepoPlace, real: string, recorded: string | null): boolean {
  if (recorded) return recorded === real;
  const parent = dirname(real);
  const name = basename(real);
  const roots = [
    join(place.toplevel, ...HOST_WORKTREES_DIR),
    dirname(place.hostWorktreesRoot),
  ];
  return roots.includes(parent) && !name.startsWith("peaks-");
}

export interface SettledSlices {
  steps: SliceStep[];
  warnings: Warning[];
}

/** The pass for every batch that has one of these (finalized) isolated records. */
export async function settleFinalized(
  ctx: Ctx,
  project: Project,
  records: Array<{ path: string; record: DispatchRecord }>,
): Promise<SettledSlices> {
  const batches = new Map<string, { sid: string; batchId: string }>();
  for (const { record } of records) {
    batches.set(`${record.sessionId}\n${record.batchId}`, {
      sid: record.sessionId,
      batchId: record.batchId,
    });
  }
  const steps: SliceStep[] = [];
  const warnings: Warning[] = [];
  for (const { sid, batchId } of batches.values()) {
    const pass = await settleBatch(project, sid, batchId, () => ctx.now());
    steps.push(...pass.steps);
    warnings.push(...pass.warnings);
  }
  return { steps, warnings };
}

/** The refusal when a finalized slice (or one merged after it) is in conflict; undefined when none is. */
export function sliceConflict(
  project: Project,
  steps: SliceStep[],
  finalized: string[],
  data: Record<string, unknown>,
): PeaksError | undefined {
  const conflicts = steps.filter((s) =>
    s.state === "conflict" && (s.action === "conflict" || finalized.includes(s.recordPath))
  );
  if (!conflicts.length) return undefined;
  const rows = conflicts.map((c) => ({
    recordPath: c.recordPath,
    node: c.node,
    files: (c.conflict?.files ?? []).slice(0, 100),
    with: c.conflict?.with ?? [],
    main: c.conflict?.main ?? false,
    patch: c.patch,
    worktree: c.worktree,
    commands: conflictCommands(project, `${project.root}/${c.recordPath}`),
  }));
  const first = conflicts[0];
  return new PeaksError(
    "SLICE_CONFLICT",
    `${
      first.conflict?.message ?? `slice ${first.node} does not apply`
    }; nothing of it was applied. ` +
      `Its patch (${first.patch}) and worktree stay until you choose: ${
        rows[0].commands.keepMain
      } | ${rows[0].commands.keepSlice} | ${rows[0].commands.redo}`,
    {
      exit: 3,
      data: { ...data, conflicts: rows },
      instructions: [
        "A slice conflict is your decision: --keep main drops this slice's change, --keep slice takes its version of the conflicting files, --redo sends the node out again on top of the current tree (the next --from-dag call).",
        "Every refused patch stays readable at its data.conflicts[].patch path whatever you choose.",
      ],
    },
  );
}
