import { defineCommand } from "../../infra/command/spec.ts";
import { gateError } from "../../infra/errors.ts";
import { driftOf, readRootState, type RootState } from "../../skills/inspect.ts";
import { readSkillsSource } from "../../skills/source.ts";
import { readFlags, repairCommands, resolveTargets, skillsCommand } from "../../skills/targets.ts";

export default defineCommand({
  name: "skills verify",
  description:
    "Checks the skills tree (portable front matter rules) and compares every installed copy with the " +
    "source and the manifest. Exits 0 when all match; exits 3 (SKILLS_DRIFT) listing each file that is " +
    "modified, missing, outdated, obsolete or not installed. With the default --agent all, folders where " +
    "nothing is installed are skipped; naming an --agent makes a missing install drift too. Read-only.",
  flags: readFlags,
  examples: [
    "peaks skills verify --json",
    "peaks skills verify --agent claude-code --scope project --json",
  ],
  exitNotes: [
    "3  SKILLS_DRIFT: an installed copy differs from the source or the manifest",
    "3  SKILLS_NOT_INSTALLED: nothing is installed for the agents and scopes asked",
    "3  SKILLS_SOURCE_INVALID: a SKILL.md breaks the portable front matter rules",
  ],
  async run({ flags, given }, ctx) {
    const source = await readSkillsSource(ctx);
    const { roots, projectRoot } = await resolveTargets(ctx, flags.agent, flags.scope);
    const states: RootState[] = [];
    for (const root of roots) {
      states.push(await readRootState(root, source, repairCommands(root, projectRoot)));
    }
    const explicitAgent = given.has("agent");
    const drift = states.flatMap((s) => driftOf(s, explicitAgent));
    const data = {
      ...(projectRoot ? { projectRoot } : {}),
      agent: flags.agent,
      scope: flags.scope,
      source: { kind: source.kind, path: source.path },
      skills: source.skills.map((s) => s.name),
      checked: states.filter((s) => s.installed).map((s) => ({
        scope: s.scope,
        dir: s.dir,
        agents: s.agents,
      })),
      drift,
    };
    // Each drifted folder gets the install command that brings it back in line.
    const fixes = [
      ...new Set(
        states.filter((s) => driftOf(s, explicitAgent).length).map((s) =>
          skillsCommand("install", s.agents[0], s.scope, projectRoot)
        ),
      ),
    ];
    if (!states.some((s) => s.installed) && !explicitAgent) {
      throw gateError(
        "SKILLS_NOT_INSTALLED",
        "No peaks skills are installed for the agents and scopes asked; nothing to verify.",
        { data, nextActions: [skillsCommand("install", "claude-code", "project", projectRoot)] },
      );
    }
    if (drift.length) {
      const shown = drift.slice(0, 5).map((d) => `${d.dir}/${d.path} ${d.state}`).join(", ");
      throw gateError(
        "SKILLS_DRIFT",
        `${drift.length} installed skill file(s) differ from the source or the manifest: ${shown}${
          drift.length > 5 ? ", ..." : ""
        }. Reinstall to update untouched files; edited files are kept unless you pass --force.`,
        { data, nextActions: fixes },
      );
    }
    return {
      data,
      nextActions: [],
      human: `skills match the source (${source.kind}: ${source.path}) in ${
        data.checked.map((c) => `${c.scope} ${c.dir}`).join(", ")
      }`,
    };
  },
});
