/**
 * The project's preferences (`.peaks/preferences.json`, schema_version
 * 2.0.0). Features read them through `readPreferences`; only the
 * `preferences` commands and `upgrade` write them.
 */
import { z } from "../zod.ts";
import type { Project } from "../project/project.ts";
import { readValidated } from "../fs/json.ts";
import { peaksLine } from "../shell.ts";
import { VENDOR_PERMISSIONS } from "../ide/vendors.ts";

export const PREFERENCES_SCHEMA_VERSION = "2.0.0";

export const AUTO_UPGRADE_PROMPT = ["opt-in", "skip-this-session", "skip-forever"] as const;
export const HEADROOM_MODES = ["balanced", "aggressive", "conservative"] as const;
export const SWARM_MODES = ["full-auto", "assisted", "swarm", "strict", "24h"] as const;

export const HeadroomPreferencesSchema = z.object({
  enabled: z.boolean().optional(),
  defaultMode: z.enum(HEADROOM_MODES).optional(),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
}).strict();

export const DetachedPreferencesSchema = z.object({
  vendorPermissions: z.enum(VENDOR_PERMISSIONS).optional(),
}).strict();

export const PreferencesSchema = z.object({
  schema_version: z.literal(PREFERENCES_SCHEMA_VERSION),
  autoUpgradePrompt: z.enum(AUTO_UPGRADE_PROMPT).optional(),
  autoUpgradePromptSessionId: z.string().optional(),
  headroom: HeadroomPreferencesSchema.optional(),
  swarmMode: z.enum(SWARM_MODES).optional(),
  detached: DetachedPreferencesSchema.optional(),
}).strict();
export type Preferences = z.infer<typeof PreferencesSchema>;

/** What a project without a preferences file behaves as. */
export const DEFAULT_PREFERENCES: Preferences = { schema_version: PREFERENCES_SCHEMA_VERSION };

/** Reads the preferences; a missing file is the defaults, a broken one RECORD_UNREADABLE. */
export async function readPreferences(project: Project): Promise<Preferences> {
  const stored = await readValidated(project.layout.preferences, PreferencesSchema, {
    what: "preferences file",
    repair: [peaksLine(project.root, ["preferences", "reset"], ["--apply"])],
  });
  return stored ?? DEFAULT_PREFERENCES;
}
