/**
 * The zod-free half of presence: caller ids, context tiers and the header.
 * `statusline render` runs after every assistant message and must never load
 * zod; dispatch and the swarm ask for the caller id on their hot paths too.
 */
import type { Env } from "../infra/command/ctx.ts";
import { isValidId } from "../infra/ids.ts";
import { safeField } from "../infra/terminal_text.ts";
import type { ContextReading, Presence } from "../state/presence.ts";
import type { PresenceMode } from "../state/presence.ts";

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

export type ContextAction = "ok" | "soft-warn" | "pre-compact" | "red-line" | "unknown";

/** Context-window tiers shared by presence, the header and the status line. */
export function contextAction(ratioPct: number | null | undefined): ContextAction {
  if (ratioPct === null || ratioPct === undefined || !Number.isFinite(ratioPct)) return "unknown";
  if (ratioPct >= 95) return "red-line";
  if (ratioPct >= 85) return "pre-compact";
  if (ratioPct >= 50) return "soft-warn";
  return "ok";
}

export interface PresenceView {
  skill: string | null;
  mode: PresenceMode | null;
  gate: string | null;
  role: string | null;
  next: string | null;
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
    next: presence?.next ?? null,
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
export function presenceHeader(view: PresenceView, options: { next?: boolean } = {}): string {
  const context = view.context.ratioPct === null
    ? "Context: unknown"
    : `Context: ${view.context.ratioPct}% (${view.context.action})`;
  const field = (value: string | null, none: string) => value === null ? none : safeField(value);
  return [
    `Peaks Skill: ${field(view.skill, "none")}`,
    `Role: ${field(view.role, "-")}`,
    `Gate: ${field(view.gate, "-")}`,
    context,
    ...(options.next ? [`Next: ${field(view.next, "-")}`] : []),
  ].join(" | ");
}
