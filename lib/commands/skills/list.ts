import { defineCommand } from "../../infra/command/spec.ts";
import type { ErrorCode, Warning } from "../../infra/errors.ts";
import { readRootState, type RootState } from "../../skills/inspect.ts";
import { readSkillsSource, type SkillsSource } from "../../skills/source.ts";
import { readFlags, repairCommands, resolveTargets } from "../../skills/targets.ts";

function line(state: RootState): string {
  const head = `${state.dir} [${state.agents.join(", ")}]`;
  if (!state.installed) {
    return `${head}: not installed${
      state.foreign.length ? ` (other skills: ${state.foreign.join(", ")})` : ""
    }`;
  }
  const skills = state.skills.map((s) => s.state === "ok" ? s.name : `${s.name} (${s.state})`);
  return `${head}: ${skills.join(", ") || "no skills"}${
    state.foreign.length ? `; not peaks': ${state.foreign.join(", ")}` : ""
  }`;
}

export default defineCommand({
  name: "skills list",
  description:
    "Shows, per agent and scope, the skills peaks installed and their state: ok, modified (edited since " +
    "install), missing, outdated (the source has a newer version), obsolete, not-installed; plus skill " +
    "folders that are not peaks'. Compares with the source when one is found; read-only.",
  flags: readFlags,
  examples: [
    "peaks skills list --json",
    "peaks skills list --agent claude-code --scope project --json",
  ],
  async run({ flags }, ctx) {
    const warnings: Warning[] = [];
    let source: SkillsSource | undefined;
    try {
      source = await readSkillsSource(ctx);
    } catch (error) {
      const code = (error as { code?: ErrorCode }).code ?? "SKILLS_SOURCE_UNAVAILABLE";
      warnings.push({
        code,
        message: `Not compared with the source: ${(error as Error).message}`,
      });
    }
    const { roots, projectRoot } = await resolveTargets(ctx, flags.agent, flags.scope);
    const states: RootState[] = [];
    for (const root of roots) {
      states.push(await readRootState(root, source, repairCommands(root, projectRoot)));
    }
    return {
      data: {
        ...(projectRoot ? { projectRoot } : {}),
        agent: flags.agent,
        scope: flags.scope,
        source: source ? { kind: source.kind, path: source.path } : null,
        targets: states,
        agents: states.flatMap((s) =>
          s.agents.map((agent) => ({
            agent,
            scope: s.scope,
            dir: s.dir,
            installed: s.installed,
            skills: s.skills,
          }))
        ),
      },
      warnings,
      human: states.map((s) => `${s.scope.padEnd(8)}${line(s)}`).join("\n"),
    };
  },
});
