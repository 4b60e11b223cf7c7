/** Every command's hostile cases, by command name as typed. */
import { COMMANDS } from "../../lib/cli/table.ts";
import type { AnyCommand } from "../../lib/infra/command/spec.ts";
import type { CommandCases } from "./model.ts";
import { SESSION_CASES } from "./cases_session.ts";
import { SUBAGENT_CASES } from "./cases_subagent.ts";
import { PROJECT_CASES } from "./cases_project.ts";
import { SWARM_CASES } from "./cases_swarm.ts";
import { HOOKS_CASES } from "./cases_hooks.ts";
import { CAPABILITIES_CASES } from "./cases_capabilities.ts";

export const ALL_CASES: Record<string, CommandCases> = {
  ...SESSION_CASES,
  ...SUBAGENT_CASES,
  ...PROJECT_CASES,
  ...SWARM_CASES,
  ...HOOKS_CASES,
  ...CAPABILITIES_CASES,
};

export interface LoadedCommand {
  name: string;
  spec: AnyCommand;
  cases: CommandCases | undefined;
}

/** The command table with each command's declaration and its cases (undefined when it has none). */
export async function loadCommands(): Promise<LoadedCommand[]> {
  return await Promise.all(COMMANDS.map(async (entry) => ({
    name: entry.name,
    spec: (await entry.load()).default,
    cases: Object.hasOwn(ALL_CASES, entry.name) ? ALL_CASES[entry.name] : undefined,
  })));
}

/** Flags that take a file-system path (their placeholder says so). */
export function isPathFlag(placeholder: string | undefined): boolean {
  return placeholder === "<path>" || placeholder === "<file>" || placeholder === "<dir>";
}
