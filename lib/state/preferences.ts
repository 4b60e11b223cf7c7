/**
 * The preferences file (`.peaks/preferences.json`): its schema version, the
 * values each key takes and the zod schema. lib/preferences/ reads and writes it.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";
import { PRESENCE_MODES } from "./presence.ts";

/** The version of the preferences file this peaks writes. */
export const PREFERENCES_SCHEMA_VERSION = "2.0.0";

export const AUTO_UPGRADE_PROMPT = ["opt-in", "skip-this-session", "skip-forever"] as const;
export const HEADROOM_MODES = ["balanced", "aggressive", "conservative"] as const;
/** The workflow mode a swarm runs in: the same words as a presence's mode. */
export const SWARM_MODES = PRESENCE_MODES;

/**
 * What a detached vendor may do: `role` edits inside the project and runs
 * peaks (the default), `read-only` reads and runs peaks, `full` is whatever
 * the vendor allows without asking. How each vendor is told: lib/detached/vendor_cli.ts.
 */
export const VENDOR_PERMISSIONS = ["role", "read-only", "full"] as const;
export type VendorPermissions = (typeof VENDOR_PERMISSIONS)[number];
export const DEFAULT_VENDOR_PERMISSIONS: VendorPermissions = "role";

/** The zod schemas, built on first use (see `schemas` in lib/infra/shape/lazy.ts). */
export const preferencesSchemas = schemas((z: Zod) => {
  const HeadroomPreferencesSchema = z.object({
    enabled: z.boolean().optional(),
    defaultMode: z.enum(HEADROOM_MODES).optional(),
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  }).strict();

  const DetachedPreferencesSchema = z.object({
    vendorPermissions: z.enum(VENDOR_PERMISSIONS).optional(),
  }).strict();

  const PreferencesSchema = z.object({
    schema_version: z.literal(PREFERENCES_SCHEMA_VERSION),
    autoUpgradePrompt: z.enum(AUTO_UPGRADE_PROMPT).optional(),
    autoUpgradePromptSessionId: z.string().optional(),
    headroom: HeadroomPreferencesSchema.optional(),
    swarmMode: z.enum(SWARM_MODES).optional(),
    detached: DetachedPreferencesSchema.optional(),
  }).strict();
  return { HeadroomPreferencesSchema, DetachedPreferencesSchema, PreferencesSchema };
});
type Built = ReturnType<typeof preferencesSchemas>;
export type Preferences = z.infer<Built["PreferencesSchema"]>;
