/**
 * What `sub-agent cleanup` does for slice worktrees. The normal run finishes
 * whatever a killed peaks left (an interrupted creation, merge or removal),
 * removes the worktrees of records that ended without being merged (their
 * change saved as a patch first) and lists the slices still waiting for the
 * orchestrator. `--orphans` lists checkouts no record names; `--orphans
 * --kill` saves each one's change as a patch, then removes it.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import type { Warning } from "../infra/errors.ts";
import { join } from "../infra/std.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { writeFileAtomic } from "../infra/fs/files.ts";
import { shortHash } from "../record/names.ts";
import {
  type Inventory,
  type Orphan,
  orphanChange,
  removeOrphan,
  takeInventory,
} from "./inventory.ts";
import { passOver, type SliceStep, withSliceLock } from "./merge.ts";
import { repoPlace } from "./place.ts";
import { TMP_DIR } from "./create.ts";
import { peaksLine } from "../infra/shell.ts";
import { conflictCommands } from "./commands.ts";

export interface WorktreeCleanup {
  data: Record<string, unknown>;
  warnings: Warning[];
  nextActions: string[];
}

function stepRows(steps: SliceStep[]) {
  return steps.map((s) => ({
    recordPath: s.recordPath,
    node: s.node,
    state: s.state,
    action: s.action,
  }));
}

/** Repairs and removals, batch by batch in DAG order, under the slice lock. */
export async function cleanupWorktrees(
  ctx: Ctx,
  project: Project,
  dry: boolean,
): Promise<WorktreeCleanup | null> {
  const place = await repoPlace(project);
  if (!place) return null;
  const warnings: Warning[] = [];
  const now = () => ctx.now();
  // Reading first: a dry run, or a project that never had a slice, takes no lock and writes nothing.
  const seen = await takeInventory(project, place);
  if (dry || (!seen.slices.length && !seen.orphans.length)) {
    return report(project, seen, [], { dry, warnings });
  }
  const result = await withSliceLock(project, async () => {
    const inventory = await takeInventory(project, place);
    const batches = new Map<string, typeof inventory.slices>();
    for (const slice of inventory.slices) {
      const key = `${slice.sessionId}\n${slice.record.batchId}`;
      batches.set(key, [...(batches.get(key) ?? []), slice]);
    }
    const steps: SliceStep[] = [];
    for (const entries of batches.values()) {
      if (entries.every((e) => e.record.worktree.removedAt)) continue;
      steps.push(...await passOver({ project, place, now, warnings }, entries));
    }
    await Deno.remove(join(place.worktreesRoot, TMP_DIR), { recursive: true }).catch(() => {});
    return { inventory: await takeInventory(project, place), steps };
  });
  return report(project, result.inventory, result.steps, { dry, warnings });
}

function report(
  project: Project,
  inventory: Inventory,
  steps: SliceStep[],
  options: { dry: boolean; warnings: Warning[] },
): WorktreeCleanup {
  const changed = steps.filter((s) => s.action !== "unchanged" && s.action !== "waiting");
  const waiting = inventory.slices.filter((s) => !s.record.worktree.removedAt);
  const nextActions = inventory.orphans.length
    ? [peaksLine(project.root, ["sub-agent", "cleanup", "--orphans"])]
    : [];
  const conflicts = inventory.conflicts.map((c) => ({
    recordPath: displayPath(project.root, c.path),
    node: c.record.worktree.node,
    message: c.record.worktree.conflict?.message ?? null,
    commands: conflictCommands(project, c.path),
  }));
  return {
    data: {
      leftovers: inventory.leftovers.map((l) => ({
        recordPath: displayPath(project.root, l.entry.path),
        reason: l.reason,
      })),
      changed: options.dry ? [] : stepRows(changed),
      open: waiting.map((s) => ({
        recordPath: displayPath(project.root, s.path),
        node: s.record.worktree.node,
        state: s.record.worktree.state,
        worktree: s.record.worktree.path,
      })),
      conflicts,
      orphans: inventory.orphans.length,
    },
    warnings: options.warnings,
    nextActions,
  };
}

/** `cleanup --orphans [--kill]` for worktrees: list, or save each one's change and remove it. */
export async function worktreeOrphans(
  project: Project,
  kill: boolean,
): Promise<{ rows: Array<Orphan & { patch: string | null; action: string }> } | null> {
  const place = await repoPlace(project);
  if (!place) return null;
  const listed = await takeInventory(project, place);
  if (!kill || !listed.orphans.length) {
    return { rows: listed.orphans.map((o) => ({ ...o, patch: null, action: "listed" })) };
  }
  return await withSliceLock(project, async () => {
    const inventory = await takeInventory(project, place);
    const rows = [];
    for (const orphan of inventory.orphans) {
      let patch: string | null = null;
      if (kill && orphan.onDisk) {
        const change = await orphanChange(place, orphan.path);
        if (change && change.length) {
          const name = `${orphan.path.split(/[\\/]/).pop()}-${shortHash(orphan.path)}`;
          const target = project.layout.orphanWorktreePatch(name);
          await writeFileAtomic(target, change);
          patch = displayPath(project.root, target);
        }
      }
      if (kill) await removeOrphan(place, orphan);
      rows.push({ ...orphan, patch, action: kill ? "removed" : "listed" });
    }
    return { rows };
  });
}
