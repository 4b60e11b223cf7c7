/** The workflow modes a presence can name. */
export const PRESENCE_MODES = ["full-auto", "assisted", "swarm", "strict", "24h"] as const;
export type PresenceMode = (typeof PRESENCE_MODES)[number];
