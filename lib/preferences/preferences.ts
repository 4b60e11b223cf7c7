/**
 * The project's preferences (`.peaks/preferences.json`, schema_version
 * 2.0.0). Features read them through `readPreferences`; only the
 * `preferences` commands and `upgrade` write them.
 */
import type { Project } from "../workspace/project.ts";
import { readValidated } from "../infra/fs/json.ts";
import { peaksLine } from "../infra/shell.ts";
import { loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { PREFERENCES_SHAPE } from "../state/shapes.ts";
import type { Preferences } from "../state/preferences.ts";
import { PREFERENCES_SCHEMA_VERSION } from "../state/preferences.ts";

export {
  AUTO_UPGRADE_PROMPT,
  HEADROOM_MODES,
  PREFERENCES_SCHEMA_VERSION,
  SWARM_MODES,
} from "../state/preferences.ts";
export type { Preferences } from "../state/preferences.ts";

/** The preferences file, checked by its shape (zod only for what the shape doubts). */
export const PreferencesFile = stateSchema<Preferences>(
  PREFERENCES_SHAPE,
  () =>
    import("../state/preferences.ts").then((m) => loadSchemas(m.preferencesSchemas)).then((s) =>
      s.PreferencesSchema
    ),
);

/** What a project without a preferences file behaves as. */
export const DEFAULT_PREFERENCES: Preferences = { schema_version: PREFERENCES_SCHEMA_VERSION };

/** Reads the preferences; a missing file is the defaults, a broken one RECORD_UNREADABLE. */
export async function readPreferences(project: Project): Promise<Preferences> {
  const stored = await readValidated(project.layout.preferences, PreferencesFile, {
    what: "preferences file",
    repair: [peaksLine(project.root, ["preferences", "reset"], ["--apply"])],
  });
  return stored ?? DEFAULT_PREFERENCES;
}
