import { usageError } from "./errors.ts";
import { redact } from "./redact.ts";

/** Identifiers that become file or directory names (sid, rid, batch id, role in names). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const SESSION_ID_PATTERN = /^\d{4}-\d{2}-\d{2}-session-[0-9a-f]{6}$/;

/**
 * Code-unit order for identifiers, paths and ISO timestamps: the same in every
 * locale, and free, where the first `localeCompare` of a process builds an ICU
 * collator (10-25 ms, more than a hot call's own work).
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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
