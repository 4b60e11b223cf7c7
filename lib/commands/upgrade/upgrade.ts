import { type CommandResult, defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { type Project, resolveProject } from "../../workspace/project.ts";
import { PeaksError, usageError, type Warning } from "../../infra/errors.ts";
import { detect1x } from "../../upgrade/detect.ts";
import { migrateTo2 } from "../../upgrade/migrate.ts";
import { peaksLine } from "../../infra/shell.ts";
import type { Ctx } from "../../infra/command/ctx.ts";

const CHOICES = [
  "Upgrade now: run `peaks upgrade --to 2.0 --auto` (recommended); remember it with autoUpgradePrompt=opt-in.",
  "Skip for this session: remember autoUpgradePrompt=skip-this-session with autoUpgradePromptSessionId set to the current session.",
  "Never ask again for this project: remember autoUpgradePrompt=skip-forever.",
];

export default defineCommand({
  name: "upgrade",
  description:
    "--detect-1x (read-only) reports whether the project is a peaks 1.x workspace, the signals that say so " +
    "(each with its path) and what to do (ask | auto-run | skip, from the autoUpgradePrompt preference). " +
    "--to 2.0 --auto migrates it: preferences to 2.0.0, the .peaks/.gitignore block, 1.x session folders into " +
    "_runtime/, session-wide artefacts (tech doc, design draft, code review, swarm plan) to their request, 1.x rule files thinned into .peaks/standards/; backs up what it changes under " +
    ".peaks/upgrade/backups/, writes an upgrade record, reports each step. Idempotent; --dry-run writes nothing.",
  flags: {
    "detect-1x": flag.boolean("Only report whether this is a 1.x project (writes nothing)."),
    to: flag.enum(["2.0"], "Migrate the workspace to this version.", { placeholder: "<2.0>" }),
    auto: flag.boolean("Run the migration without questions (required with --to)."),
    "dry-run": flag.boolean("With --to: report every step, write nothing."),
    "session-id": flag.string("Session to compare with a skip-this-session choice.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks upgrade --detect-1x --json",
    "peaks upgrade --to 2.0 --auto --dry-run --json",
    "peaks upgrade --to 2.0 --auto --project ./my-app --json",
  ],
  exitNotes: ["1  NO_WORKSPACE: --to 2.0 needs an existing .peaks/ workspace"],
  async run({ flags, given }, ctx) {
    const project = await resolveProject(ctx);
    const detectCmd = peaksLine(project.root, ["upgrade", "--detect-1x"]);
    if (flags["detect-1x"] === (flags.to !== undefined)) {
      throw usageError(
        "MISSING_FLAG",
        "peaks upgrade needs exactly one of --detect-1x or --to 2.0 --auto.",
        {
          data: { flag: "detect-1x", allowed: ["--detect-1x", "--to 2.0 --auto"] },
          nextActions: [detectCmd],
        },
      );
    }
    if (flags["detect-1x"]) {
      for (const name of ["auto", "dry-run"]) {
        if (given.has(name)) {
          throw usageError("INVALID_FLAG_VALUE", `--${name} goes with --to 2.0, not --detect-1x.`, {
            data: { flag: name },
          });
        }
      }
      return await detectOnly(ctx, project, flags["session-id"]);
    }
    if (!flags.auto) {
      throw usageError(
        "MISSING_FLAG",
        "--to 2.0 runs without questions only with --auto; add --dry-run to preview.",
        {
          data: { flag: "auto" },
          nextActions: [upgradeCmd(project, ["--dry-run"]), upgradeCmd(project)],
        },
      );
    }
    return await migrate(ctx, project, flags["dry-run"], flags["session-id"]);
  },
});

function upgradeCmd(project: Project, extra: string[] = []): string {
  return peaksLine(project.root, ["upgrade", "--to", "2.0", "--auto", ...extra]);
}

/** --detect-1x: what was found and what to do about it; writes nothing. */
async function detectOnly(
  ctx: Ctx,
  project: Project,
  sessionId: string | undefined,
): Promise<CommandResult> {
  const detection = await detect1x(ctx, project, sessionId);
  const nextActions = !detection.isOneX
    ? []
    : detection.decision === "auto-run"
    ? [upgradeCmd(project)]
    : detection.decision === "ask"
    ? [upgradeCmd(project, ["--dry-run"]), upgradeCmd(project)]
    : [];
  return {
    data: {
      ...detection,
      instructions: detection.isOneX && detection.decision === "ask"
        ? ["Ask the user once, with these three options:", ...CHOICES]
        : [detection.decisionReason],
    },
    nextActions,
    human: [
      `1.x: ${detection.isOneX} (decision: ${detection.decision} - ${detection.decisionReason})`,
      ...detection.signals.map((s) => `  - ${s.message}`),
    ].join("\n"),
  };
}

/** --to 2.0 --auto: the migration (or its preview), then what is left to do. */
async function migrate(
  ctx: Ctx,
  project: Project,
  dryRun: boolean,
  sessionId: string | undefined,
): Promise<CommandResult> {
  const root = project.root;
  const before = await detect1x(ctx, project, sessionId);
  if (!before.workspaceExists) {
    throw new PeaksError(
      "NO_WORKSPACE",
      `There is no peaks workspace (.peaks/) in ${root} to upgrade.`,
      { data: { projectRoot: root }, nextActions: [peaksLine(root, ["workspace", "init"])] },
    );
  }
  const result = await migrateTo2(project, ctx.now(), dryRun, before.signals);
  const after = dryRun ? before : await detect1x(ctx, project, sessionId);
  const warnings: Warning[] = after.signals.filter((s) => s.kind === "global-config").map((
    s,
  ) => ({
    code: "GLOBAL_CONFIG_1X",
    message:
      `${s.message}: that file belongs to the peaks installation, not this project; reinstall peaks 2.0 to refresh it. Until then --detect-1x keeps reporting this project as 1.x.`,
  }));
  return {
    data: {
      projectRoot: root,
      to: "2.0",
      dryRun,
      changed: result.changed,
      steps: result.steps,
      backupDir: result.backupDir,
      backups: result.backups,
      recordPath: result.recordPath,
      signalsBefore: before.signals,
      remainingSignals: dryRun ? null : after.signals,
      instructions: dryRun
        ? ["Dry run: nothing was written. Run the migration when the user agrees."]
        : ["Migration done. Preview the standards that now replace the 1.x rule files."],
    },
    warnings,
    nextActions: dryRun
      ? (result.changed ? [upgradeCmd(project)] : [])
      : [peaksLine(root, ["standards", "update"]), peaksLine(root, ["upgrade", "--detect-1x"])],
    human: [
      `${dryRun ? "dry run" : "upgrade"} to 2.0: ${
        result.changed ? (dryRun ? "changes planned" : "changed") : "already up to date"
      }`,
      ...result.steps.map((s) =>
        `  ${s.step}: ${s.status}${
          s.details.length ? `\n${s.details.map((d) => `    - ${d}`).join("\n")}` : ""
        }`
      ),
    ].join("\n"),
  };
}
