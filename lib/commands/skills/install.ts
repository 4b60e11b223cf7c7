import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import type { Warning } from "../../infra/errors.ts";
import { VERSION } from "../../infra/command/build.ts";
import { installIntoRoot, type RootInstallReport } from "../../skills/install_root.ts";
import { readSkillsSource } from "../../skills/source.ts";
import {
  notAProjectWarning,
  repairCommands,
  resolveTargets,
  skillsCommand,
  writeFlags,
} from "../../skills/targets.ts";

/** How each file action reads in a sentence: `14 files created, 2 kept (edited by you)`. */
const ACTION_WORDS: Record<string, string> = {
  create: "created",
  restore: "restored",
  update: "updated",
  adopt: "recorded as already there",
  "user-modified": "kept (edited by you)",
  overwrite: "overwritten (--force)",
  remove: "removed",
};

function countText(report: RootInstallReport): string {
  const parts = Object.entries(report.counts)
    .filter(([action, n]) => action !== "unchanged" && n)
    .map(([action, n], i) =>
      `${n}${i === 0 ? ` file${n === 1 ? "" : "s"}` : ""} ${ACTION_WORDS[action] ?? action}`
    );
  return parts.length ? `${report.status}: ${parts.join(", ")}` : report.status;
}

export default defineCommand({
  name: "skills install",
  description:
    "Copies the bundled skills (from PEAKS_SKILLS_DIR, the skills/ folder next to the binary, or the copy " +
    "built into it) into each agent's skills folder and records a manifest (.peaks-skills-manifest.json: " +
    "version and SHA-256 per file). Running it again changes nothing; an upgrade replaces only files still " +
    "as peaks wrote them. Files you edited are kept and reported (--force overwrites them). Skill folders " +
    "peaks did not install are never touched. Refuses symlinked skills folders and an invalid skills tree.",
  flags: {
    ...writeFlags,
    force: flag.boolean("Overwrite files you edited since peaks installed them."),
  },
  examples: [
    "peaks skills install --json",
    "peaks skills install --agent all --scope project --json",
    "peaks skills install --agent codex --scope user --dry-run --json",
  ],
  exitNotes: [
    "1  SKILLS_SOURCE_NOT_FOUND / SKILLS_SOURCE_EMPTY: no skills tree to install from",
    "3  SKILLS_SOURCE_INVALID: a SKILL.md breaks the portable front matter rules",
    "3  SKILLS_CONFLICT: a folder with a skill's name exists that peaks did not install",
  ],
  async run({ flags }, ctx) {
    const source = await readSkillsSource(ctx);
    const { roots, projectRoot } = await resolveTargets(ctx, flags.agent, flags.scope);
    const options = (root: (typeof roots)[number]) => ({
      force: flags.force,
      dryRun: flags["dry-run"],
      repair: repairCommands(root, projectRoot),
    });
    // Plan every folder before writing any, so a conflict in one leaves all untouched.
    const previews: RootInstallReport[] = [];
    for (const root of roots) {
      previews.push(await installIntoRoot(ctx, root, source, { ...options(root), dryRun: true }));
    }
    const reports = flags["dry-run"] ? previews : [];
    if (!flags["dry-run"]) {
      for (const root of roots) {
        reports.push(await installIntoRoot(ctx, root, source, options(root)));
      }
    }

    const warnings: Warning[] = reports.filter((r) => r.userModified.length).map((r) => ({
      code: "USER_MODIFIED_KEPT",
      message:
        `${r.dir}: kept ${r.userModified.length} file(s) edited since peaks installed them (${
          r.userModified.join(", ")
        }); rerun with --force to overwrite them.`,
      dir: r.dir,
      files: r.userModified,
    }));
    const kept = warnings.length > 0;
    const outside = await notAProjectWarning(ctx, flags.scope, roots);
    if (outside) warnings.push(outside);
    const nextActions = flags["dry-run"]
      ? [skillsCommand("install", flags.agent, flags.scope, projectRoot)]
      : [skillsCommand(kept ? "list" : "verify", flags.agent, flags.scope, projectRoot)];
    const lines = [
      `skills from ${source.kind}: ${source.path} (${source.skills.map((s) => s.name).join(", ")})`,
      ...reports.map((r) => `  ${r.dir} [${r.agents.join(", ")}]: ${countText(r)}`),
    ];
    return {
      data: {
        ...(projectRoot ? { projectRoot } : {}),
        agent: flags.agent,
        scope: flags.scope,
        dryRun: flags["dry-run"],
        force: flags.force,
        version: VERSION,
        source: { kind: source.kind, path: source.path },
        skills: source.skills.map((s) => s.name),
        changed: reports.some((r) => r.changed),
        targets: reports,
        agents: reports.flatMap((r) =>
          r.agents.map((agent) => ({ agent, dir: r.dir, status: r.status }))
        ),
      },
      warnings,
      nextActions,
      human: lines.join("\n"),
    };
  },
});
