/**
 * Text from stored state on its way to a terminal. Files under `.peaks` can be
 * edited by hand or arrive with a cloned repository, so a role, title, gate or
 * note may hold escape sequences (clear the screen, set the title, write the
 * clipboard) or bidirectional overrides that make text read differently from
 * what it is. Every human, status-line and header renderer passes stored
 * fields through `safeField`, and the kernel passes all human output through
 * `safeText`; JSON output keeps the values but escapes these characters.
 */

// C0 and C1 controls, DEL, bidi embeddings/overrides/isolates, line and paragraph separators.
// deno-lint-ignore no-control-regex
const UNSAFE_IN_FIELD = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
// The same, minus newline and tab, which multi-line human output uses.
// deno-lint-ignore no-control-regex
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const WHITESPACE_CONTROLS = /[\t\n\r\u2028\u2029]/g;

/** One line of stored text, safe to print: line breaks become spaces, other controls go. */
export function safeField(text: string): string {
  return text.replace(WHITESPACE_CONTROLS, " ").replace(UNSAFE_IN_FIELD, "");
}

/** Human output, safe to print: keeps newlines and tabs, drops every other control. */
export function safeText(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(UNSAFE_IN_TEXT, "");
}

// Characters JSON.stringify leaves raw although a terminal may act on them.
const RAW_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * Escapes, inside serialized JSON, the characters JSON.stringify leaves raw
 * but a terminal would act on. They can only occur inside strings, so the
 * document means exactly the same.
 */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
