/** The prompt-budget flags, declared once for `context check` and `sub-agent dispatch`. */
import { flag } from "../infra/command/flag.ts";
import { HEADROOM_MODES } from "../state/preferences.ts";

export const governanceFlags = {
  "context-window": flag.int("The sub-agent's context window in tokens (default: the IDE's).", {
    min: 1_000,
    max: 10_000_000,
  }),
  force: flag.boolean("Let a prompt from 80% of the window through; records forcedAt."),
  "use-headroom": flag.boolean("Compress through the headroom proxy first (never blocks)."),
  "headroom-mode": flag.enum(
    HEADROOM_MODES,
    "Token budget for compression: 40%, 20% or 70% of the prompt (default: preference, else balanced).",
  ),
};

/** The words that repeat a budget choice (plus a suggested change) on a re-run. */
export function governanceWords(
  flags: {
    "context-window"?: number;
    force: boolean;
    "use-headroom": boolean;
    "headroom-mode"?: string;
  },
  change: { useHeadroom?: true; headroomMode?: string; force?: true } = {},
): string[] {
  const useHeadroom = flags["use-headroom"] || change.useHeadroom === true;
  const mode = change.headroomMode ?? flags["headroom-mode"];
  return [
    ...(flags["context-window"] === undefined
      ? []
      : ["--context-window", String(flags["context-window"])]),
    ...(useHeadroom ? ["--use-headroom"] : []),
    ...(useHeadroom && mode !== undefined ? ["--headroom-mode", mode] : []),
    ...(flags.force || change.force ? ["--force"] : []),
  ];
}
