/**
 * Installed skills, read the way `skills verify` reads them: every folder of
 * every agent in the project and user scopes that holds a peaks manifest,
 * compared file by file with the manifest and the source.
 */
import { PeaksError } from "../infra/errors.ts";
import type { InstallRoot } from "../skills/agents.ts";
import { driftOf, readRootState, type RootState } from "../skills/inspect.ts";
import { readSkillsSource, type SkillsSource } from "../skills/source.ts";
import { repairCommands, resolveTargets, skillsCommand } from "../skills/targets.ts";
import { type CheckOutcome, type Finding, somePaths } from "./model.ts";
import type { Check } from "./model.ts";

type NewFinding = Omit<Finding, "check">;

/** States `skills install` repairs by itself; edited files need --force, non-files a person. */
const REINSTALLABLE = new Set(["missing", "outdated", "obsolete", "not-installed"]);

function stateFindings(state: RootState, projectRoot: string | undefined): NewFinding[] {
  const agent = state.recordedAgents[0] ?? state.agents[0];
  const install = (extra: string[] = []) =>
    skillsCommand("install", agent, state.scope, projectRoot, extra);
  const drift = driftOf(state, false);
  const files = (wanted: (s: string) => boolean) =>
    drift.filter((d) => wanted(d.state)).map((d) => `${state.dir}/${d.path}`);
  const summary = (wanted: (s: string) => boolean) =>
    [...new Set(drift.filter((d) => wanted(d.state)).map((d) => d.state))].join(", ");
  const findings: NewFinding[] = [];
  const reinstall = files((s) => REINSTALLABLE.has(s));
  if (reinstall.length) {
    findings.push({
      id: "skills.drift",
      severity: files((s) => s === "missing").length ? "error" : "warning",
      title: `${reinstall.length} file(s) in ${state.dir} differ from the source (${
        summary((s) => REINSTALLABLE.has(s))
      })`,
      detail:
        "Missing files break the skill the agent loads; outdated, obsolete or never-installed ones mean the agent reads another version than this peaks ships. Reinstalling touches only files peaks wrote and still match its manifest.",
      fix: install(),
      paths: somePaths(reinstall),
    });
  }
  const modified = files((s) => s === "modified");
  if (modified.length) {
    findings.push({
      id: "skills.modified",
      severity: "warning",
      title: `${modified.length} installed skill file(s) in ${state.dir} were edited`,
      detail:
        "Edited copies are kept by install and uninstall. The fix replaces the edits with the shipped files: ask the user first, or leave them if the edits are intended.",
      fix: install(["--force"]),
      confirm: true,
      paths: somePaths(modified),
    });
  }
  const blocked = files((s) => s === "not-a-file");
  if (blocked.length) {
    findings.push({
      id: "skills.blocked-file",
      severity: "error",
      title: `A folder or symlink stands where peaks installed a file in ${state.dir}`,
      detail:
        `peaks never writes through a symlink or over a folder. Move them away, then run ${install()}.`,
      fix: null,
      paths: somePaths(blocked),
    });
  }
  return findings;
}

function rootFailure(root: InstallRoot, error: PeaksError): NewFinding {
  if (error.code === "RECORD_UNREADABLE") {
    return {
      id: "skills.manifest-unreadable",
      severity: "error",
      title: `The skills manifest in ${root.display} is unreadable`,
      detail: `${error.message} Without it peaks cannot tell its files from the user's.`,
      fix: error.nextActions[0] ?? null,
      confirm: true,
      paths: [`${root.display}/.peaks-skills-manifest.json`],
    };
  }
  return {
    id: "skills.folder-blocked",
    severity: "warning",
    title: `The skills folder ${root.display} cannot be read safely`,
    detail: error.message,
    fix: null,
    paths: [root.display],
  };
}

export const skillsCheck: Check = {
  name: "skills",
  async run({ ctx }) {
    const outcome: CheckOutcome = { summary: "", findings: [] };
    let source: SkillsSource | undefined;
    try {
      source = await readSkillsSource(ctx);
    } catch (error) {
      if (!(error instanceof PeaksError)) throw error;
      outcome.findings.push({
        id: "skills.source",
        severity: "warning",
        title: "The bundled skills tree cannot be used",
        detail:
          `${error.message} Installed copies are still compared with their manifests, not with the source.`,
        fix: null,
      });
    }
    const { roots, projectRoot } = await resolveTargets(ctx, "all", "all");
    const installed: RootState[] = [];
    for (const root of roots) {
      try {
        const state = await readRootState(root, source, repairCommands(root, projectRoot));
        if (!state.installed) continue;
        installed.push(state);
        outcome.findings.push(...stateFindings(state, projectRoot));
      } catch (error) {
        if (!(error instanceof PeaksError)) throw error;
        outcome.findings.push(rootFailure(root, error));
      }
    }
    outcome.facts = {
      source: source ? { kind: source.kind, path: source.path } : null,
      installed: installed.map((s) => ({
        scope: s.scope,
        dir: s.dir,
        agents: s.recordedAgents,
        version: s.version,
        skills: s.skills.map((k) => k.name),
      })),
    };
    if (!installed.length && !outcome.findings.some((f) => f.id === "skills.manifest-unreadable")) {
      outcome.findings.push({
        id: "skills.not-installed",
        severity: "info",
        title: "No peaks skills are installed for any agent",
        detail:
          "Agents find the peaks workflow through the installed skills. Pick the agent the user works with (--agent claude-code, codex, cursor, gemini, opencode, trae).",
        fix: skillsCommand("install", "claude-code", "project", projectRoot),
      });
    }
    outcome.summary = installed.length
      ? `${installed.length} skills folder(s) checked against ${
        source ? `${source.kind}: ${source.path}` : "their manifests"
      }`
      : "no skills installed";
    return outcome;
  },
};
