/** The zod schemas of the preferences file (preferences.ts). */
import { z } from "../infra/zod.ts";
import { VENDOR_PERMISSIONS } from "../hosts/vendors.ts";
import {
  AUTO_UPGRADE_PROMPT,
  HEADROOM_MODES,
  PREFERENCES_SCHEMA_VERSION,
  SWARM_MODES,
} from "../preferences/values.ts";

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
