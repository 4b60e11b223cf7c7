import type { Project } from "../workspace/project.ts";
import { readValidated, updateJson } from "../infra/fs/json.ts";
import { loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { CONTEXT_READING_SHAPE, PRESENCE_SHAPE } from "../state/shapes.ts";
import type { ContextReading, Presence } from "../state/presence.ts";

import type { PresenceMode } from "../state/presence.ts";
import { isoTime } from "../infra/ids.ts";

export { PRESENCE_MODES, type PresenceMode } from "../state/presence.ts";

export type { ContextReading, Presence } from "../state/presence.ts";

/** Presence and context files, checked by their shapes (zod only for what a shape doubts). */
export const PresenceFile = stateSchema<Presence>(
  PRESENCE_SHAPE,
  () =>
    import("../state/presence.ts").then((m) => loadSchemas(m.presenceSchemas)).then((s) =>
      s.PresenceSchema
    ),
);
const ContextReadingFile = stateSchema<ContextReading>(
  CONTEXT_READING_SHAPE,
  () =>
    import("../state/presence.ts").then((m) => loadSchemas(m.presenceSchemas)).then((s) =>
      s.ContextReadingSchema
    ),
);

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
    const presence = await readValidated(own, PresenceFile, options);
    if (presence) return { presence, path: own };
  }
  const shared = project.layout.presence(sid);
  return { presence: await readValidated(shared, PresenceFile, options), path: shared };
}

export interface PresenceChange {
  skill: string;
  /** Each field: a value to set (null clears it); absent keeps the current value. */
  mode?: PresenceMode | null;
  gate?: string | null;
  role?: string | null;
  next?: string | null;
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
  const at = isoTime(now);
  // presence:set rewrites the whole file, so a broken one is moved aside (kept) and replaced.
  const options = { what: "presence file", replaceUnreadable: true };
  return updateJson(path, PresenceFile, options, (current) => {
    const sameSkill = current?.skill === change.skill;
    const keep = <K extends "gate" | "role" | "next">(key: K) =>
      change[key] !== undefined ? change[key] ?? null : sameSkill ? current?.[key] ?? null : null;
    const next: Presence = {
      version: 1,
      sessionId: sid,
      callerId: callerId ?? null,
      skill: change.skill,
      mode: change.mode !== undefined ? change.mode : current?.mode ?? null,
      gate: keep("gate"),
      role: keep("role"),
      next: keep("next"),
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
  return readValidated(project.layout.context(sid), ContextReadingFile, {
    what: "context reading",
  });
}
