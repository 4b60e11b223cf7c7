/**
 * The per-session ledger of `--allow-incomplete` transitions
 * (`.peaks/_runtime/<sid>/request-overrides.json`). Skipping a gate is
 * allowed a few times per session, and every use is on record.
 *
 * A transition writes its ledger entry first and its request file second;
 * the request's history line is the commit point. An entry whose history
 * line is missing belongs to a transition that is still running (its request
 * is locked) or whose writer was killed: the first counts, the second never
 * happened, so it is not counted and the next override drops it.
 */
import type { Project } from "../workspace/project.ts";
import { gateError } from "../infra/errors.ts";
import { isLocked } from "../infra/fs/lock.ts";
import { parseRequest, readRequestText, REQUEST_ROLES } from "./file.ts";
import { isValidId } from "../infra/ids.ts";
import { readValidated, updateJson } from "../infra/fs/json.ts";
import { commandLine } from "../infra/shell.ts";
import { readHistory } from "./history.ts";
import { loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { OVERRIDE_LEDGER_SHAPE } from "../state/shapes.ts";
import type { OverrideEntry, OverrideLedger } from "../state/overrides.ts";

export type { OverrideEntry } from "../state/overrides.ts";

export const OVERRIDE_LIMIT = 3;

/** The ledger, checked by its shape (zod only for what the shape doubts). */
export const OverrideLedgerFile = stateSchema<OverrideLedger>(
  OVERRIDE_LEDGER_SHAPE,
  () =>
    import("../state/overrides.ts").then((m) => loadSchemas(m.overridesSchemas)).then((s) =>
      s.OverrideLedgerSchema
    ),
);

function options(project: Project, sid: string) {
  return {
    what: "allow-incomplete ledger",
    // Removing the ledger resets the session's count; only a person should decide that.
    repair: [commandLine(["rm", project.layout.requestOverrides(sid)])],
  };
}

/** The request a caller holds the lock of (its entries cannot be in progress elsewhere). */
export interface HeldRequest {
  rid: string;
  role: string;
}

/** Whether the entry's transition reached its request file (the history line is there). */
async function applied(project: Project, sid: string, entry: OverrideEntry): Promise<boolean> {
  if (!(REQUEST_ROLES as readonly string[]).includes(entry.role) || !isValidId(entry.rid)) {
    return false;
  }
  const path = project.layout.request(sid, entry.role, entry.rid);
  const text = await readRequestText(path).catch(() => undefined);
  if (text === undefined) return false;
  try {
    const history = readHistory((await parseRequest(path, text)).body);
    return history.some((line) =>
      line.startsWith(`${entry.at} `) && line.includes("allow-incomplete (")
    );
  } catch {
    return false;
  }
}

/** The entries that count: applied, or still in progress (their request is locked by someone else). */
async function countedEntries(
  project: Project,
  sid: string,
  entries: OverrideEntry[],
  held?: HeldRequest,
): Promise<OverrideEntry[]> {
  const keep = await Promise.all(entries.map(async (entry) => {
    const mine = held && entry.rid === held.rid && entry.role === held.role;
    const valid = (REQUEST_ROLES as readonly string[]).includes(entry.role) && isValidId(entry.rid);
    // The lock first: a transition that finishes between the two checks is then seen as applied.
    if (!mine && valid && await isLocked(project.layout.request(sid, entry.role, entry.rid))) {
      return true;
    }
    return await applied(project, sid, entry);
  }));
  return entries.filter((_, i) => keep[i]);
}

/** The uses that count in a session (`held`: the request whose lock the caller holds). */
export async function readOverrides(
  project: Project,
  sid: string,
  held?: HeldRequest,
): Promise<OverrideEntry[]> {
  const ledger = await readValidated(
    project.layout.requestOverrides(sid),
    OverrideLedgerFile,
    options(project, sid),
  );
  return await countedEntries(project, sid, ledger?.entries ?? [], held);
}

/**
 * Records one use, or refuses (exit 3) when the session already used all of
 * them. Returns how many remain after this one. The caller holds the lock of
 * the request `held` and writes it after this returns.
 */
export function recordOverride(
  project: Project,
  sid: string,
  entry: OverrideEntry,
  held: HeldRequest,
): Promise<{ used: number; remaining: number }> {
  return updateJson(
    project.layout.requestOverrides(sid),
    OverrideLedgerFile,
    options(project, sid),
    async (ledger) => {
      const entries = await countedEntries(project, sid, ledger?.entries ?? [], held);
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
