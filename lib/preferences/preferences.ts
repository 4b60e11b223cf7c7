/**
 * The project's preferences (`.peaks/preferences.json`, schema_version
 * 2.0.0). Features read them through `readPreferences`; only the
 * `preferences` commands and `upgrade` write them.
 */
import type { Project } from "../workspace/project.ts";
import { describeIssues, readJsonFile, unreadable } from "../infra/fs/json.ts";
import { peaksLine } from "../infra/shell.ts";
import { checkState, loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { PREFERENCES_SHAPE } from "../state/shapes.ts";
import type { Preferences } from "../state/preferences.ts";
import {
  isLegacyPreferences,
  legacyView,
  PREFERENCES_SCHEMA_VERSION,
} from "../state/preferences.ts";

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

/**
 * Reads the preferences; a missing file is the defaults, a broken one
 * RECORD_UNREADABLE. A 1.x file (schema_version 1.x) is read as its 2.0 view:
 * the keys 2.0 knows with values 2.0 accepts; the file is left as it is.
 */
export async function readPreferences(project: Project): Promise<Preferences> {
  const path = project.layout.preferences;
  const options = {
    what: "preferences file",
    repair: [peaksLine(project.root, ["preferences", "reset"], ["--apply"])],
  };
  const raw = await readJsonFile(path, options);
  if (raw === undefined) return DEFAULT_PREFERENCES;
  if (isLegacyPreferences(raw)) return await legacyPreferences(raw as Record<string, unknown>);
  const parsed = await checkState(PreferencesFile, raw);
  if (!parsed.success) {
    throw unreadable(path, options, `does not match its schema: ${describeIssues(parsed.error)}`);
  }
  return parsed.data;
}

async function legacyPreferences(raw: Record<string, unknown>): Promise<Preferences> {
  const { preferencesSchemas } = await import("../state/preferences.ts");
  const { PreferencesSchema } = await loadSchemas(preferencesSchemas);
  const keys = PreferencesSchema.shape as Record<
    string,
    { safeParse(v: unknown): { success: boolean } }
  >;
  const view = legacyView(raw, (k, v) => Object.hasOwn(keys, k) && keys[k].safeParse(v).success);
  return view as Preferences;
}
