/**
 * Secret shapes that must never reach stdout or stderr. Each match is replaced
 * by a fixed marker naming the kind, so an error stays readable.
 */
const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [
    // Leading dashes optional: an argument parsed as a flag loses them.
    /-*BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    "[REDACTED:pem]",
  ],
  [/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g, "[REDACTED:pem]"],
  [/\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, "$1 [REDACTED]"],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, "[REDACTED:jwt]"],
  [/\bgithub_pat_[A-Za-z0-9_]{10,}/g, "[REDACTED:github-token]"],
  [/\bgh[pousr]_[A-Za-z0-9]{10,}/g, "[REDACTED:github-token]"],
  [/\bsk-[A-Za-z0-9_-]{10,}/g, "[REDACTED:api-key]"],
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, "[REDACTED:aws-key]"],
  [
    /\b((?:api[_-]?key|apikey|password|passwd|secret|token|access[_-]?key)\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&"',;]+)/gi,
    "$1[REDACTED]",
  ],
  // Credentials in a URL: scheme://user:password@host (and scheme://token@host).
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:'"]+(?::[^\s/@'"]*)?@/gi, "$1[REDACTED]@"],
];

/**
 * A word every pattern above needs (`BEGIN`, `bearer`, `eyJ`, a token prefix,
 * a key word, `://`), matched without case, so it finds a superset of what
 * they find: text without any of them is returned as it is, and the ten
 * patterns compile only when something may need them.
 */
const MAY_HOLD_SECRET =
  /BEGIN|bearer|eyJ|github_pat_|gh[pousr]_|sk-|AKIA|ASIA|api[_-]?key|apikey|passw|secret|token|access[_-]?key|:\/\//i;

/**
 * Redacts, then shortens to `max` characters: cutting first could leave the
 * front half of a secret that no pattern recognises any more.
 */
export function clip(text: string, max: number): string {
  const redacted = redact(text);
  return redacted.length > max ? `${redacted.slice(0, max)}…` : redacted;
}

export function redact(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of PATTERNS) {
    out = out.replace(pattern, replacement);
  }
  return out;
}

/** Redacts every string inside a JSON-like value (used on error envelopes). */
export function redactDeep<T>(value: T): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = redactDeep(item);
    return out as T;
  }
  return value;
}
