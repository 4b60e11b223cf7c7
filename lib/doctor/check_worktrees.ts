/**
 * Slice worktrees: what a killed peaks left (a creation, merge or removal
 * that did not finish, a worktree git lists as locked or prunable), checkouts
 * no record names, and slices in conflict waiting for a decision. Reads only.
 */
import { displayPath } from "../workspace/paths.ts";
import { takeInventory } from "../slice/inventory.ts";
import { repoPlace } from "../slice/place.ts";
import { peaksLine } from "../infra/shell.ts";
import { type Check, type CheckOutcome, somePaths } from "./model.ts";

export const worktreesCheck: Check = {
  name: "worktrees",
  async run({ project, workspace }) {
    if (!workspace) return { skipped: "no workspace", summary: "", findings: [] };
    const place = await repoPlace(project);
    if (!place) return { skipped: "not a git repository", summary: "", findings: [] };
    const inventory = await takeInventory(project, place);
    const shown = (path: string) => displayPath(project.root, path);
    const outcome: CheckOutcome = {
      summary: `${
        inventory.slices.filter((s) => !s.record.worktree.removedAt).length
      } open slice worktree(s)`,
      findings: [],
    };
    if (inventory.leftovers.length) {
      outcome.findings.push({
        id: "worktrees.leftover",
        severity: "warning",
        title: `${inventory.leftovers.length} slice worktree(s) left unfinished (${
          [...new Set(inventory.leftovers.map((l) => l.reason))].join(", ")
        })`,
        detail:
          "A creation, merge or removal was interrupted, or a slice's record ended without being merged. Cleanup finishes each one in DAG order; a change that was not merged is kept as a patch.",
        fix: peaksLine(project.root, ["sub-agent", "cleanup"]),
        paths: somePaths(inventory.leftovers.map((l) => shown(l.entry.path))),
      });
    }
    if (inventory.orphans.length) {
      const locked = inventory.orphans.filter((o) => o.locked).length;
      outcome.findings.push({
        id: "worktrees.orphans",
        severity: "warning",
        title: `${inventory.orphans.length} slice worktree(s) no record names${
          locked ? ` (${locked} locked by an interrupted git worktree add)` : ""
        }`,
        detail:
          "The listing shows each one; `sub-agent cleanup --orphans --kill` saves each one's change as a patch under .peaks/_sub_agents/_archive/worktrees/ and removes it. Run that only when the user decides so.",
        fix: peaksLine(project.root, ["sub-agent", "cleanup", "--orphans"]),
        paths: somePaths(inventory.orphans.map((o) => shown(o.path))),
      });
    }
    for (const conflict of inventory.conflicts.slice(0, 5)) {
      const record = shown(conflict.path);
      const merge = (...extra: string[]) =>
        peaksLine(project.root, ["sub-agent", "merge", "--record", record, ...extra]);
      outcome.findings.push({
        id: "worktrees.conflict",
        severity: "warning",
        title: `Slice ${
          conflict.record.worktree.node ?? conflict.record.role
        } waits for a decision: ${
          conflict.record.worktree.conflict?.message ?? "its patch does not apply"
        }`,
        detail: `Its patch (${conflict.record.worktree.patch}) and worktree are kept. Choose one: ${
          merge("--keep", "main")
        } | ${merge("--keep", "slice")} | ${merge("--redo")}`,
        fix: null,
        paths: [record],
      });
    }
    return outcome;
  },
};
