/**
 * Per-role model and effort (`models.<role>`, `effort.<role>` in the
 * preferences), passed to the host's sub-agent tool where it takes them
 * (lib/hosts/<host>.ts `model` / `effort`). A role named `<role>-<more>`
 * takes its base role's choice unless it has one of its own.
 */
import { PeaksError, type Warning } from "../infra/errors.ts";
import type { SubAgentTool } from "../hosts/host.ts";
import { whenPresent } from "../infra/fs/files.ts";
import type { Preferences } from "../state/preferences.ts";
import type { Project } from "../workspace/project.ts";

/** One chosen value and the preference key it came from. */
export interface Tuned {
  key: string;
  value: string;
}

export interface RoleTuning {
  model?: Tuned;
  effort?: Tuned;
}

export type TuningFor = (role: string) => RoleTuning;

const NONE: TuningFor = () => ({});

function pick(map: Record<string, string | undefined> | undefined, group: string, role: string) {
  if (!map) return undefined;
  const base = role.split("-")[0];
  for (const name of role === base ? [role] : [role, base]) {
    const value = Object.hasOwn(map, name) ? map[name] : undefined;
    if (value !== undefined) return { key: `${group}.${name}`, value };
  }
  return undefined;
}

/** The role's choices in `preferences`. */
export function tuningOf(preferences: Preferences, role: string): RoleTuning {
  const model = pick(preferences.models, "models", role);
  const effort = pick(preferences.effort, "effort", role);
  return { ...(model ? { model } : {}), ...(effort ? { effort } : {}) };
}

/**
 * The per-role choices of the project's preferences; a broken preferences
 * file is a PREFERENCES_UNREADABLE warning and no choice, never a refusal.
 */
export async function readTuning(project: Project, warnings: Warning[]): Promise<TuningFor> {
  let preferences: Preferences | undefined;
  try {
    // The reader loads only when there is a file: without one no role is tuned.
    preferences = await whenPresent(project.layout.preferences, async () => {
      const { readPreferences } = await import("../preferences/preferences.ts");
      return await readPreferences(project);
    });
  } catch (error) {
    if (!(error instanceof PeaksError)) throw error;
    warnings.push({
      code: "PREFERENCES_UNREADABLE",
      message: `${error.message} No per-role model or effort was passed.`,
      path: error.data.path,
    });
    return NONE;
  }
  if (!preferences || (!preferences.models && !preferences.effort)) return NONE;
  const found = preferences;
  return (role) => tuningOf(found, role);
}

/**
 * Adds the role's model and effort to `args` where the host's tool takes
 * them; each choice it cannot pass is a PREFERENCE_NOT_PASSED warning.
 */
export function applyTuning(
  tool: SubAgentTool,
  hostName: string,
  tuning: RoleTuning | undefined,
  args: Record<string, unknown>,
): Warning[] {
  const warnings: Warning[] = [];
  for (const what of ["model", "effort"] as const) {
    const chosen = tuning?.[what];
    if (!chosen) continue;
    const arg = tool[what];
    if (arg && (!arg.values || arg.values.includes(chosen.value))) {
      args[arg.key] = chosen.value;
      continue;
    }
    const why = arg ? `takes ${arg.key} as one of ${arg.values!.join(", ")}` : `takes no ${what}`;
    warnings.push({
      code: "PREFERENCE_NOT_PASSED",
      message: `${chosen.key} = ${
        JSON.stringify(chosen.value)
      } was not passed: ${hostName}'s ${tool.tool} tool ${why}.`,
      key: chosen.key,
    });
  }
  return warnings;
}
