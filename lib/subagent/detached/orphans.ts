/**
 * `sub-agent cleanup --orphans`: detached runs whose supervisor is gone (its
 * pid file is left unlocked) or whose session no longer exists. Listing
 * changes nothing; `--kill`, a user decision, stops the live ones through
 * their stop file and reconciles the dead ones.
 */
import type { CommandResult } from "../../cli/spec.ts";
import type { Ctx } from "../../core/ctx.ts";
import {
  listRuns,
  readPidFile,
  readRunOwner,
  readRunStatus,
  reconcileRun,
  recordPathOf,
} from "../../core/detached_runs.ts";
import { displayPath } from "../../core/paths.ts";
import type { Project } from "../../core/project.ts";
import { commandLine } from "../../core/shell.ts";
import { stopRun } from "./control.ts";

export interface OrphanRow {
  runDir: string;
  recordPath: string;
  sessionId: string;
  requestId: string;
  reason: "supervisor-gone" | "session-gone";
  supervisorPid: number | null;
  vendorPid: number | null;
  action: "listed" | "stopped" | "stopping" | "reconciled";
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

export async function cleanupOrphans(
  ctx: Ctx,
  project: Project,
  options: { session?: string; kill: boolean },
): Promise<CommandResult<unknown>> {
  const now = ctx.now();
  const rows: OrphanRow[] = [];
  for (const entry of await listRuns(project, options.session)) {
    const [owner, status, pid] = await Promise.all([
      readRunOwner(entry.dir).catch(() => undefined),
      readRunStatus(entry.dir).catch(() => undefined),
      readPidFile(entry.pidPath),
    ]);
    const sid = owner?.sessionId ?? entry.sessionId;
    const sessionGone = !(await exists(project.layout.sessionMeta(sid)));
    const reason = entry.lease === "dead" ? "supervisor-gone" : sessionGone ? "session-gone" : null;
    if (!reason) continue;
    const row: OrphanRow = {
      runDir: displayPath(project.root, entry.dir),
      recordPath: displayPath(project.root, recordPathOf(project, entry)),
      sessionId: sid,
      requestId: entry.requestId,
      reason,
      supervisorPid: owner?.supervisorPid ?? status?.supervisorPid ?? pid,
      vendorPid: status?.childPid ?? null,
      action: "listed",
    };
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
  const lost = rows.filter((r) => r.reason === "supervisor-gone" && r.supervisorPid !== null);
  const scope = options.session === undefined ? [] : ["--session", options.session];
  const nextActions = !options.kill && rows.length
    ? [
      commandLine([
        "peaks",
        "sub-agent",
        "cleanup",
        "--orphans",
        "--kill",
        ...scope,
        "--project",
        project.root,
      ]),
    ]
    : [];
  const instructions = [
    ...(!options.kill && rows.length
      ? ["Stopping orphans is the user's decision: ask before running the command in nextActions."]
      : []),
    ...lost.map((r) =>
      `The supervisor of ${r.runDir} is gone and peaks cannot signal a process it did not start; its vendor (pid ${r.vendorPid}) may still run in process group ${r.supervisorPid}. Check with \`pgrep -l -g ${r.supervisorPid}\` and stop it with \`kill -TERM -- -${r.supervisorPid}\`.`
    ),
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
