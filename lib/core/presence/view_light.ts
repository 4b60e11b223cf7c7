/**
 * The zod-free half of presence: context tiers and the header, for
 * `statusline render`, which must stay fast and never load zod.
 */
import type { ContextReading, Presence, PresenceMode } from "./presence.ts";

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
