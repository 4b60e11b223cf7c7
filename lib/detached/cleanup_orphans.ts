/**
 * `sub-agent cleanup --orphans`: detached runs whose supervisor is gone (its
 * pid file is left unlocked) or whose session no longer exists. Listing
 * changes nothing; `--kill`, a user decision, stops the live ones through
 * their stop file and reconciles the dead ones.
 */
import type { CommandResult } from "../infra/command/spec.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { reconcileRun } from "./runs.ts";
import { listOrphans, lostVendorInstructions, type OrphanRow } from "./orphans.ts";
import type { Project } from "../workspace/project.ts";
import { stopRun } from "./control.ts";
import { peaksLine } from "../infra/shell.ts";

export async function cleanupOrphans(
  ctx: Ctx,
  project: Project,
  options: { session?: string; kill: boolean },
): Promise<CommandResult<unknown>> {
  const now = ctx.now();
  const rows: OrphanRow[] = [];
  for (const { entry, row } of await listOrphans(project, options.session)) {
    if (options.kill) {
      if (entry.lease === "dead") {
        await reconcileRun(project, entry, now);
        row.action = "reconciled";
      } else {
        row.action = (await stopRun(project, entry, "orphan", now)).state === "stopped"
          ? "stopped"
          : "stopping";
      }
    }
    rows.push(row);
  }
  const scope = options.session === undefined ? [] : ["--session", options.session];
  const nextActions = !options.kill && rows.length
    ? [
      peaksLine(project.root, ["sub-agent", "cleanup", "--orphans", "--kill", ...scope]),
    ]
    : [];
  const instructions = [
    ...(!options.kill && rows.length
      ? ["Stopping orphans is the user's decision: ask before running the command in nextActions."]
      : []),
    ...lostVendorInstructions(rows),
  ];
  return {
    data: {
      projectRoot: project.root,
      killed: options.kill,
      orphans: rows,
      ...(instructions.length ? { instructions } : {}),
    },
    nextActions,
    human: rows.length
      ? [
        `${rows.length} orphan detached run(s)${options.kill ? "" : " (nothing changed)"}:`,
        ...rows.map((r) => `  ${r.reason} ${r.action} ${r.runDir}`),
      ].join("\n")
      : "no orphan detached runs",
  };
}
