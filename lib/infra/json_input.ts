/**
 * JSON that callers hand peaks (`share --value`, `finalize --result-json`, a
 * DAG file): bounded in nesting before it is parsed, so a small deeply nested
 * value is a usage error naming the flag, never a stack overflow in a later
 * stringify or a channel file blown up by indentation.
 */
import { usageError } from "./errors.ts";

/** Deeper values are refused; real payloads stay within a handful of levels. */
export const JSON_MAX_DEPTH = 64;

/** The deepest nesting of arrays and objects in JSON text (strings are skipped); stops past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Refuses JSON text nested deeper than JSON_MAX_DEPTH (exit 2, JSON_TOO_DEEP, naming the flag). */
export function assertJsonDepth(text: string, flag: string, max = JSON_MAX_DEPTH): void {
  if (jsonDepth(text, max) > max) {
    throw usageError(
      "JSON_TOO_DEEP",
      `--${flag} nests arrays or objects more than ${max} levels deep; flatten the value.`,
      { data: { flag, maxDepth: max } },
    );
  }
}
