/** The values the preferences file can hold (preferences.ts). */
export const PREFERENCES_SCHEMA_VERSION = "2.0.0";

export const AUTO_UPGRADE_PROMPT = ["opt-in", "skip-this-session", "skip-forever"] as const;
export const HEADROOM_MODES = ["balanced", "aggressive", "conservative"] as const;
export const SWARM_MODES = ["full-auto", "assisted", "swarm", "strict", "24h"] as const;
