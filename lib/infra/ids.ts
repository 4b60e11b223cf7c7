import { usageError } from "./errors.ts";
import { redact } from "./redact.ts";

/** Identifiers that become file or directory names (sid, rid, batch id, role in names). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Code-unit order for identifiers, paths and ISO timestamps: the same in every
 * locale, and free, where the first `localeCompare` of a process builds an ICU
 * collator (10-25 ms, more than a hot call's own work).
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const DAY_MS = 86_400_000;

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/**
 * `date.toISOString()` for the years 0-9999, computed in plain arithmetic:
 * the first `toISOString` of a process costs about 1 ms, more than a
 * heartbeat's own update. Other years (and invalid dates) go to it unchanged.
 */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  if (!(ms >= -62_167_219_200_000 && ms <= 253_402_300_799_999)) return date.toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // Days since 1970-01-01 to a civil date, with March-based years (leap day last).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra -
    (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${
    pad(seconds, 2)
  }.${pad(rest - seconds * 1000, 3)}Z`;
}

export function isValidId(value: string): boolean {
  return ID_PATTERN.test(value) && !value.includes("..");
}

/** Throws a usage error naming the flag when `value` cannot be used in a path. */
export function assertId(value: string, label: string): string {
  if (!isValidId(value)) {
    throw usageError(
      "INVALID_IDENTIFIER",
      `${label} ${
        JSON.stringify(printable(value))
      } is not a valid identifier: use 1-128 characters from A-Z a-z 0-9 . _ - starting with a letter or digit.`,
      { data: { flag: label, pattern: ID_PATTERN.source } },
    );
  }
  return value;
}

/** An optional identifier flag: undefined stays undefined, anything else must be valid. */
export function optionalId(value: string | undefined, label: string): string | undefined {
  return value === undefined ? undefined : assertId(value, label);
}

/**
 * Redacts, makes control characters visible and shortens, in that order, so
 * an echoed value stays safe (a cut before redaction could keep half a secret).
 */
export function printable(value: string, max = 80): string {
  const visible = redact(value).replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return visible.length > max ? `${visible.slice(0, max)}…` : visible;
}

export function randomHex(length: number): string {
  const bytes = new Uint8Array(Math.ceil(length / 2));
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("").slice(0, length);
}

export function newSessionId(now: Date): string {
  return `${now.toISOString().slice(0, 10)}-session-${randomHex(6)}`;
}

export function newUuid(): string {
  return crypto.randomUUID();
}

/** A compact UTC timestamp usable in file names: 20261129T211900123Z. */
export function fileTimestamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(".", "");
}
