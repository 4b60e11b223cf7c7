/**
 * What dispatch records are called: role names as they appear in file
 * names, record file names and short ids, the run name of a record's
 * detached run folder and slice worktree. The record's words and schema are
 * in lib/state/record.ts.
 */
import { usageError } from "../infra/errors.ts";
import { isValidId, printable, randomHex } from "../infra/ids.ts";
import { commandLine } from "../infra/shell.ts";
import { basename } from "../infra/std.ts";

/** The one command offered to get a broken record out of the way (it keeps the bytes). */
export function quarantineCommand(path: string): string {
  return commandLine(["mv", path, `${path}.corrupt`]);
}

// Also the bidirectional overrides and isolates, which make a role read as something else.
// deno-lint-ignore no-control-regex
const CONTROL_OR_SPACE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\s]/u;
export const ROLE_MAX = 256;

/** Roles are free-form: 1-256 characters, no control characters, no whitespace. */
export function assertRole(role: string): string {
  const length = [...role].length;
  if (length < 1 || length > ROLE_MAX || CONTROL_OR_SPACE.test(role)) {
    throw usageError(
      "INVALID_ROLE",
      `<role> ${
        JSON.stringify(printable(role))
      } is not a valid role: use 1-${ROLE_MAX} characters without whitespace, control or bidirectional-override characters (e.g. rd, qa-test-cases, ui).`,
      { data: { argument: "role", example: "rd-planning" } },
    );
  }
  return role;
}

/** FNV-1a, 32 bits, as 8 hex digits: a short stable tag for names that need one. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

const ROLE_FILE_MAX = 64;

/**
 * The role as it appears in file names: the role itself when it is already a
 * safe identifier of at most 64 characters, else a lowercase slug of it plus
 * an 8-hex hash of the full role (so two roles never share a name by slugging).
 */
export function roleFileName(role: string): string {
  if (isValidId(role) && role.length <= ROLE_FILE_MAX) return role;
  const slug = role.toLowerCase().normalize("NFKD").replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "").replace(/-{2,}/g, "-").replace(/\.{2,}/g, ".")
    .slice(0, ROLE_FILE_MAX - 9).replace(/[-.]+$/, "");
  return `${slug || "role"}-${shortHash(role)}`;
}

/**
 * Milliseconds since the epoch in base 36: eight characters (until 2059), so
 * names sort by time. Short on purpose: record paths travel in every envelope.
 */
export function recordTimestamp(now: Date): string {
  return now.getTime().toString(36).padStart(8, "0");
}

/**
 * `dispatch-<rid>-<role>-<ts>-<rand4>.json`. Two dispatches in the same
 * millisecond rarely draw the same four hex digits; when they do, exclusive
 * create fails and the dispatch picks another name.
 */
export function recordFileName(rid: string, role: string, now: Date): string {
  return `dispatch-${rid}-${roleFileName(role)}-${recordTimestamp(now)}-${randomHex(4)}.json`;
}

export function recordFileOf(path: string): string {
  return basename(path);
}

/** The record's short id: the time and random parts of its file name (`mx5bdd8m-f9f6`). */
const RECORD_ID = /^[0-9a-z]{8}-[0-9a-f]{4}$/;

export function recordIdOf(fileName: string): string {
  return /-([0-9a-z]{8}-[0-9a-f]{4})\.json$/.exec(fileName)?.[1] ?? fileName;
}

export function isRecordId(value: string): boolean {
  return RECORD_ID.test(value);
}

/**
 * `dispatch-<rid>-<rest>.json` -> `<rest>` (role, time, random tag): the name of the record's
 * detached run folder and of a slice's worktree.
 */
export function runNameFor(recordFile: string, rid: string): string {
  const prefix = `dispatch-${rid}-`;
  const stem = recordFile.replace(/\.json$/, "");
  return stem.startsWith(prefix) ? stem.slice(prefix.length) : stem.replace(/^dispatch-/, "");
}
