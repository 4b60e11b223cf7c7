import { z } from "../zod.ts";
import type { Project } from "../project/project.ts";
import { readValidated, updateJson } from "../fs/json.ts";

export const PRESENCE_MODES = ["full-auto", "assisted", "swarm", "strict", "24h"] as const;
export type PresenceMode = (typeof PRESENCE_MODES)[number];

export const PresenceSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  callerId: z.string().nullable(),
  skill: z.string(),
  mode: z.enum(PRESENCE_MODES).nullable(),
  gate: z.string().nullable(),
  role: z.string().nullable(),
  setAt: z.string(),
  updatedAt: z.string(),
});
export type Presence = z.infer<typeof PresenceSchema>;

export const ContextReadingSchema = z.object({
  ratioPct: z.number().min(0).max(1000),
  source: z.string(),
  at: z.string(),
  windowTokens: z.number().nullable().optional(),
  usedTokens: z.number().nullable().optional(),
});
export type ContextReading = z.infer<typeof ContextReadingSchema>;

/**
 * The presence a caller sees: its own window's file when it has a caller id
 * and that file exists, else the session-wide one.
 */
export async function readPresence(
  project: Project,
  sid: string,
  callerId: string | undefined,
): Promise<{ presence: Presence | undefined; path: string }> {
  const options = { what: "presence file" };
  if (callerId) {
    const own = project.layout.presence(sid, callerId);
    const presence = await readValidated(own, PresenceSchema, options);
    if (presence) return { presence, path: own };
  }
  const shared = project.layout.presence(sid);
  return { presence: await readValidated(shared, PresenceSchema, options), path: shared };
}

export interface PresenceChange {
  skill: string;
  /** Each field: a value to set (null clears it); absent keeps the current value. */
  mode?: PresenceMode | null;
  gate?: string | null;
  role?: string | null;
}

/**
 * Writes a caller's presence under its lock. Fields not given keep their
 * value while the skill stays the same; a different skill starts with no
 * gate and no role. `skill presence:set` and the swarm gates both use it.
 */
export function setPresence(
  project: Project,
  sid: string,
  callerId: string | undefined,
  change: PresenceChange,
  now: Date,
): Promise<Presence> {
  const path = project.layout.presence(sid, callerId);
  const at = now.toISOString();
  // presence:set rewrites the whole file, so a broken one is moved aside (kept) and replaced.
  const options = { what: "presence file", replaceUnreadable: true };
  return updateJson(path, PresenceSchema, options, (current) => {
    const sameSkill = current?.skill === change.skill;
    const keep = <K extends "gate" | "role">(key: K) =>
      change[key] !== undefined ? change[key] ?? null : sameSkill ? current?.[key] ?? null : null;
    const next: Presence = {
      version: 1,
      sessionId: sid,
      callerId: callerId ?? null,
      skill: change.skill,
      mode: change.mode !== undefined ? change.mode : current?.mode ?? null,
      gate: keep("gate"),
      role: keep("role"),
      setAt: sameSkill && current ? current.setAt : at,
      updatedAt: at,
    };
    return { value: next, result: next };
  });
}

export function readContextReading(
  project: Project,
  sid: string,
): Promise<ContextReading | undefined> {
  return readValidated(project.layout.context(sid), ContextReadingSchema, {
    what: "context reading",
  });
}
