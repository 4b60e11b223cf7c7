import { z } from "zod";
import type { Env } from "./ctx.ts";
import { isValidId } from "./ids.ts";
import type { Project } from "./project.ts";
import { readValidated, updateJson } from "./store.ts";

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

export type ContextAction = "ok" | "soft-warn" | "pre-compact" | "red-line" | "unknown";

/** Context-window tiers shared by presence, the header and the status line. */
export function contextAction(ratioPct: number | null | undefined): ContextAction {
  if (ratioPct === null || ratioPct === undefined || !Number.isFinite(ratioPct)) return "unknown";
  if (ratioPct >= 95) return "red-line";
  if (ratioPct >= 85) return "pre-compact";
  if (ratioPct >= 50) return "soft-warn";
  return "ok";
}

/** Environment variables that identify the caller's window, in order of preference. */
export const CALLER_ID_VARIABLES = ["PEAKS_CALLER_ID", "CLAUDE_CODE_SESSION_ID"] as const;

/** Makes any caller id usable as a file name (long or odd ids are hashed). */
export async function callerFileId(raw: string): Promise<string> {
  if (isValidId(raw) && raw.length <= 64) return raw;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(raw));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return `h-${hex.slice(0, 24)}`;
}

export async function callerIdFromEnv(env: Env): Promise<string | undefined> {
  for (const name of CALLER_ID_VARIABLES) {
    const value = env.get(name)?.trim();
    if (value) return await callerFileId(value);
  }
  return undefined;
}

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
  return updateJson(path, PresenceSchema, { what: "presence file" }, (current) => {
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

export interface PresenceView {
  skill: string | null;
  mode: PresenceMode | null;
  gate: string | null;
  role: string | null;
  setAt: string | null;
  updatedAt: string | null;
  context: {
    ratioPct: number | null;
    action: ContextAction;
    source: string | null;
    at: string | null;
  };
}

export function presenceView(
  presence: Presence | undefined,
  reading: ContextReading | undefined,
): PresenceView {
  return {
    skill: presence?.skill ?? null,
    mode: presence?.mode ?? null,
    gate: presence?.gate ?? null,
    role: presence?.role ?? null,
    setAt: presence?.setAt ?? null,
    updatedAt: presence?.updatedAt ?? null,
    context: {
      ratioPct: reading ? Math.round(reading.ratioPct) : null,
      action: contextAction(reading?.ratioPct),
      source: reading?.source ?? null,
      at: reading?.at ?? null,
    },
  };
}

/** The one-line header the skills show on every turn. */
export function presenceHeader(view: PresenceView): string {
  const context = view.context.ratioPct === null
    ? "Context: unknown"
    : `Context: ${view.context.ratioPct}% (${view.context.action})`;
  return [
    `Peaks Skill: ${view.skill ?? "none"}`,
    `Role: ${view.role ?? "-"}`,
    `Gate: ${view.gate ?? "-"}`,
    context,
  ].join(" | ");
}
