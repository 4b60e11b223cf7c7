import { defineCommand } from "../../infra/command/spec.ts";
import { isCompiled, VERSION } from "../../infra/command/build.ts";
import { resolveProject } from "../../workspace/project.ts";
import { detachedCheck } from "../../doctor/check_detached.ts";
import { recordsCheck } from "../../doctor/check_records.ts";
import { rootFilesCheck } from "../../doctor/check_root_files.ts";
import { runtimeCheck } from "../../doctor/check_runtime.ts";
import { skillsCheck } from "../../doctor/check_skills.ts";
import { standardsCheck } from "../../doctor/check_standards.ts";
import { statuslineCheck } from "../../doctor/check_statusline.ts";
import { gitignoreCheck, workspaceCheck } from "../../doctor/check_workspace.ts";
import { worktreesCheck } from "../../doctor/check_worktrees.ts";
import { type Check, type Finding, runCheck, type Severity } from "../../doctor/model.ts";
import { renderDoctor } from "../../doctor/render.ts";
import { isDirectory } from "../../infra/fs/files.ts";

/** In the order they are shown. */
export const CHECKS: Check[] = [
  runtimeCheck,
  workspaceCheck,
  gitignoreCheck,
  skillsCheck,
  statuslineCheck,
  recordsCheck,
  detachedCheck,
  worktreesCheck,
  standardsCheck,
  rootFilesCheck,
];

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

function instructionsFor(findings: Finding[]): string[] {
  const out: string[] = [];
  if (findings.some((f) => f.confirm && f.fix)) {
    out.push(
      "Fixes with confirm: true replace something of the user's (edited skill files): ask the user before running them; they are not in nextActions.",
    );
  }
  if (findings.some((f) => !f.fix)) {
    out.push("Findings with fix: null need a person: their detail says what to do.");
  }
  if (findings.some((f) => f.severity === "info" && f.fix)) {
    out.push(
      "Info findings are optional set-up; run their fix when the user works that way. They are not in nextActions.",
    );
  }
  return out;
}

export default defineCommand({
  name: "doctor",
  description:
    "Checks the installation and the project, and changes nothing: version and permissions, the workspace " +
    "and its session, .peaks/.gitignore's managed block, installed skills against the source and their " +
    "manifests, the Claude Code status line, stale, never-started and unreadable sub-agent records, orphan " +
    "detached runs, unfinished or orphan slice worktrees and slices in conflict, Gate G (CLAUDE.md's managed block names the stack) and stray screenshots, snapshots or " +
    "mock servers at the repository root. Each finding has a severity (error, warning, info) and its fix " +
    "command, or null when only a person can fix it. nextActions are the fixes of the error and warning " +
    "findings that need no confirmation. Exits 1 when any finding is an error, else 0.",
  flags: {},
  examples: ["peaks doctor --json", "peaks doctor --project ./my-app"],
  exitNotes: [
    "1  at least one finding is an error (the envelope is still ok: true; data.findings lists it)",
  ],
  async run(_input, ctx) {
    const project = await resolveProject(ctx);
    const input = {
      ctx,
      project,
      now: ctx.now(),
      workspace: await isDirectory(project.layout.runtime),
    };
    const ran = await Promise.all(CHECKS.map((check) => runCheck(check, input)));
    const findings = ran.flatMap((r) => r.findings)
      .map((finding, order) => ({ finding, order }))
      .sort((a, b) => RANK[a.finding.severity] - RANK[b.finding.severity] || a.order - b.order)
      .map((s) => s.finding);
    const checks = ran.map((r) => r.result);
    const facts = Object.fromEntries(
      ran.filter((r) => r.facts).map((r) => [r.result.name, r.facts]),
    );
    const counts = { error: 0, warning: 0, info: 0 };
    for (const finding of findings) counts[finding.severity]++;
    const nextActions = [
      ...new Set(
        findings.filter((f) => f.fix && f.severity !== "info" && !f.confirm).map((f) => f.fix!),
      ),
    ];
    const instructions = instructionsFor(findings);
    return {
      data: {
        projectRoot: project.root,
        healthy: findings.length === 0,
        counts,
        findings,
        checks,
        facts,
        ...(instructions.length ? { instructions } : {}),
      },
      nextActions,
      exitCode: counts.error ? 1 : 0,
      human: renderDoctor(
        `peaks ${VERSION} (deno ${Deno.version.deno}, ${
          isCompiled() ? "compiled" : "deno run"
        }) in ${project.root}`,
        checks,
        findings,
      ),
    };
  },
});
