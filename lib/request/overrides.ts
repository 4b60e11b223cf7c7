/**
 * The per-session ledger of `--allow-incomplete` transitions
 * (`.peaks/_runtime/<sid>/request-overrides.json`). Skipping a gate is
 * allowed a few times per session, and every use is on record.
 */
import { z } from "zod";
import type { Project } from "../core/project.ts";
import { gateError } from "../core/errors.ts";
import { readValidated, updateJson } from "../core/store.ts";
import { commandLine } from "../core/shell.ts";

export const OVERRIDE_LIMIT = 3;

export const OverrideEntrySchema = z.object({
  at: z.string(),
  rid: z.string(),
  role: z.string(),
  from: z.string(),
  to: z.string(),
  reason: z.string(),
  /** The gates the transition skipped. */
  bypassed: z.array(z.enum(["lint", "prerequisites"])),
});
export type OverrideEntry = z.infer<typeof OverrideEntrySchema>;

export const OverrideLedgerSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  entries: z.array(OverrideEntrySchema),
});

function options(project: Project, sid: string) {
  return {
    what: "allow-incomplete ledger",
    // Removing the ledger resets the session's count; only a person should decide that.
    repair: [commandLine(["rm", project.layout.requestOverrides(sid)])],
  };
}

export async function readOverrides(project: Project, sid: string): Promise<OverrideEntry[]> {
  const ledger = await readValidated(
    project.layout.requestOverrides(sid),
    OverrideLedgerSchema,
    options(project, sid),
  );
  return ledger?.entries ?? [];
}

/**
 * Records one use, or refuses (exit 3) when the session already used all of
 * them. Returns how many remain after this one.
 */
export function recordOverride(
  project: Project,
  sid: string,
  entry: OverrideEntry,
): Promise<{ used: number; remaining: number }> {
  return updateJson(
    project.layout.requestOverrides(sid),
    OverrideLedgerSchema,
    options(project, sid),
    (ledger) => {
      const entries = ledger?.entries ?? [];
      if (entries.length >= OVERRIDE_LIMIT) {
        throw gateError(
          "ALLOW_INCOMPLETE_LIMIT",
          `--allow-incomplete was already used ${entries.length} times in session ${sid} (at most ${OVERRIDE_LIMIT} per session). Fix what the gate reports instead.`,
          {
            data: { sessionId: sid, limit: OVERRIDE_LIMIT, used: entries },
          },
        );
      }
      const next = [...entries, entry];
      return {
        value: { version: 1 as const, sessionId: sid, entries: next },
        result: { used: next.length, remaining: OVERRIDE_LIMIT - next.length },
      };
    },
  );
}
