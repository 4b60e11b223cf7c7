/**
 * The preferences file (`.peaks/preferences.json`): its schema version, the
 * values each key takes and the zod schema. lib/preferences/ reads and writes it.
 */
import type { z } from "../infra/zod.ts";
import { schemas, type Zod } from "../infra/shape/lazy.ts";
import { PRESENCE_MODES } from "./presence.ts";
import { REQUEST_ROLES } from "./request.ts";

/** The version of the preferences file this peaks writes. */
export const PREFERENCES_SCHEMA_VERSION = "2.0.0";

/**
 * A preferences file written by peaks 1.x: schema_version "1" or "1.<anything>".
 * Such a file is read and changed in place (its version and every key it has
 * are kept); only `upgrade --to 2.0` rewrites it, with a backup.
 */
export const LEGACY_PREFERENCES_VERSION = /^1(\.|$)/;

/** Whether `raw` is a 1.x preferences file (an object whose schema_version says 1.x). */
export function isLegacyPreferences(raw: unknown): boolean {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return false;
  const version = (raw as Record<string, unknown>).schema_version;
  return typeof version === "string" && LEGACY_PREFERENCES_VERSION.test(version);
}

/**
 * The 2.0 view of a 1.x file, as features read it: the keys 2.0 knows whose
 * values 2.0 accepts (`valid` decides), under schema_version 2.0.0. The file
 * itself is not changed.
 */
export function legacyView(
  raw: Record<string, unknown>,
  valid: (key: string, value: unknown) => boolean,
): Record<string, unknown> {
  const view: Record<string, unknown> = { schema_version: PREFERENCES_SCHEMA_VERSION };
  for (const [key, value] of Object.entries(raw)) {
    if (key !== "schema_version" && valid(key, value)) view[key] = value;
  }
  return view;
}

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

/**
 * The roles a sub-agent model or effort can be chosen for (`models.rd`,
 * `effort.qa`): the request roles. A dispatched role named `<role>-<more>`
 * (rd-planning, qa-test-cases) takes its base role's choice unless it is one itself.
 */
export const TUNED_ROLES = REQUEST_ROLES;
/** Every effort a host's sub-agent tool takes; each host's file says which of them it takes. */
export const SUB_AGENT_EFFORTS = ["minimal", "low", "medium", "high", "xhigh", "max"] as const;
/** A model name as a host's tool takes it: an alias (opus) or an id, no spaces. */
export const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@\/\[\]-]*$/;

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

  const roles = <T extends z.ZodType>(value: T) =>
    z.object(Object.fromEntries(TUNED_ROLES.map((role) => [role, value.optional()]))).strict();
  const ModelsPreferencesSchema = roles(z.string().min(1).max(128).regex(MODEL_NAME));
  const EffortPreferencesSchema = roles(z.enum(SUB_AGENT_EFFORTS));

  const PreferencesSchema = z.object({
    schema_version: z.literal(PREFERENCES_SCHEMA_VERSION),
    autoUpgradePrompt: z.enum(AUTO_UPGRADE_PROMPT).optional(),
    autoUpgradePromptSessionId: z.string().optional(),
    headroom: HeadroomPreferencesSchema.optional(),
    swarmMode: z.enum(SWARM_MODES).optional(),
    detached: DetachedPreferencesSchema.optional(),
    /** The model each role's sub-agent runs on, where the host's sub-agent tool takes one. */
    models: ModelsPreferencesSchema.optional(),
    /** The reasoning effort of each role's sub-agent, where the host's sub-agent tool takes one. */
    effort: EffortPreferencesSchema.optional(),
  }).strict();
  /**
   * A 1.x file: its own version and any keys it has, the keys 2.0 knows
   * checked as 2.0 checks them, so a change written into it is a valid one.
   */
  const LegacyPreferencesSchema = z.looseObject({
    ...PreferencesSchema.shape,
    schema_version: z.string().regex(LEGACY_PREFERENCES_VERSION),
  });
  /** What `preferences set` and `reset --key` read and write: a 2.0 or a 1.x file. */
  const StoredPreferencesSchema = z.union([PreferencesSchema, LegacyPreferencesSchema]);
  return {
    HeadroomPreferencesSchema,
    DetachedPreferencesSchema,
    PreferencesSchema,
    LegacyPreferencesSchema,
    StoredPreferencesSchema,
  };
});
type Built = ReturnType<typeof preferencesSchemas>;
export type Preferences = z.infer<Built["PreferencesSchema"]>;
