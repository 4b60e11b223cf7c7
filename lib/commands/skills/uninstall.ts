import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import type { Warning } from "../../infra/errors.ts";
import { type RootUninstallReport, uninstallFromRoot } from "../../skills/uninstall_root.ts";
import { repairCommands, resolveTargets, skillsCommand, writeFlags } from "../../skills/targets.ts";

function line(report: RootUninstallReport): string {
  const parts: string[] = [report.status];
  if (report.removed.length) parts.push(`${report.removed.length} removed`);
  if (report.kept.length) parts.push(`${report.kept.length} kept`);
  if (report.remainingAgents.length) {
    parts.push(`still installed for ${report.remainingAgents.join(", ")}`);
  }
  return `  ${report.dir} [${report.agents.join(", ")}]: ${parts.join(", ")}`;
}

export default defineCommand({
  name: "skills uninstall",
  description:
    "Removes the skills peaks installed: only files whose content still matches the manifest. Files you " +
    "edited are kept and reported (--force deletes them too), skill folders peaks did not install are never " +
    "touched, folders peaks created are removed once empty, and the manifest goes when nothing of peaks' " +
    "remains. In a folder several agents share, uninstalling one agent keeps the files while another " +
    "agent is still recorded there.",
  flags: {
    ...writeFlags,
    force: flag.boolean("Also delete files peaks installed that you edited since."),
  },
  examples: [
    "peaks skills uninstall --json",
    "peaks skills uninstall --agent all --scope project --dry-run --json",
  ],
  async run({ flags }, ctx) {
    const { roots, projectRoot } = await resolveTargets(ctx, flags.agent, flags.scope);
    const reports: RootUninstallReport[] = [];
    for (const root of roots) {
      reports.push(
        await uninstallFromRoot(ctx, root, {
          force: flags.force,
          dryRun: flags["dry-run"],
          repair: repairCommands(root, projectRoot),
        }),
      );
    }
    const warnings: Warning[] = reports.filter((r) => r.kept.length).map((r) => ({
      code: "FILES_KEPT",
      message: `${r.dir}: kept ${r.kept.length} file(s) peaks installed but you changed (${
        r.kept.map((k) => `${k.path}: ${k.reason}`).join(", ")
      }); rerun with --force to delete edited ones.`,
      dir: r.dir,
      files: r.kept,
    }));
    const nextActions = flags["dry-run"]
      ? [skillsCommand("uninstall", flags.agent, flags.scope, projectRoot)]
      : [skillsCommand("list", flags.agent, flags.scope, projectRoot)];
    return {
      data: {
        ...(projectRoot ? { projectRoot } : {}),
        agent: flags.agent,
        scope: flags.scope,
        dryRun: flags["dry-run"],
        force: flags.force,
        changed: !flags["dry-run"] &&
          reports.some((r) =>
            r.status === "removed" || r.status === "partly-removed" || r.status === "released"
          ),
        targets: reports,
        agents: reports.flatMap((r) =>
          r.agents.map((agent) => ({ agent, dir: r.dir, status: r.status }))
        ),
      },
      warnings,
      nextActions,
      human: ["skills uninstall", ...reports.map(line)].join("\n"),
    };
  },
});
