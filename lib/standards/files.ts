/**
 * How standards touch files without ever overwriting someone else's text.
 *
 * In CLAUDE.md / AGENTS.md peaks owns only the block between the standards
 * markers. The block's first line records a digest of what peaks wrote, so
 * peaks can tell its own untouched block from a foreign one: a block without
 * that line, one whose body no longer matches its digest (edited by hand),
 * or a begin marker without a single matching end. Foreign blocks are
 * review-only. Files under .peaks/standards/ are owned whole, with the same
 * digest line at the top.
 */
import { STANDARDS_BEGIN, STANDARDS_END } from "./block.ts";

const META = /^<!-- peaks:standards:meta v1 sha256:([0-9a-f]{16}) [^\n]*-->$/;
const FILE_META = /^<!-- peaks:standards:file v1 sha256:([0-9a-f]{16}) [^\n]*-->$/;

export async function digest(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text.replace(/\r\n/g, "\n"));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

export type BlockState =
  | { kind: "none" }
  | { kind: "peaks"; start: number; end: number; body: string }
  | { kind: "foreign"; reason: string };

function eolOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

export async function classifyBlock(text: string): Promise<BlockState> {
  const begins = count(text, STANDARDS_BEGIN);
  const ends = count(text, STANDARDS_END);
  if (begins === 0 && ends === 0) return { kind: "none" };
  if (begins !== 1 || ends !== 1) {
    return {
      kind: "foreign",
      reason:
        `it has ${begins} begin and ${ends} end peaks standards markers (expected one of each)`,
    };
  }
  const start = text.indexOf(STANDARDS_BEGIN);
  const endMarker = text.indexOf(STANDARDS_END);
  if (endMarker < start) {
    return { kind: "foreign", reason: "its end marker comes before the begin marker" };
  }
  const inner = text.slice(start + STANDARDS_BEGIN.length, endMarker).replace(/\r\n/g, "\n");
  const lines = inner.replace(/^\n/, "").split("\n");
  const meta = META.exec(lines[0] ?? "");
  if (!meta) {
    return {
      kind: "foreign",
      reason: "the block between the peaks markers was not written by this peaks (no digest line)",
    };
  }
  const body = lines.slice(1).join("\n").replace(/\n$/, "");
  if ((await digest(body)) !== meta[1]) {
    return { kind: "foreign", reason: "the block was edited by hand since peaks wrote it" };
  }
  return { kind: "peaks", start, end: endMarker + STANDARDS_END.length, body };
}

export async function renderBlock(body: string, eol = "\n"): Promise<string> {
  const meta = `<!-- peaks:standards:meta v1 sha256:${await digest(
    body,
  )} (written by peaks standards; edit outside the markers) -->`;
  return [STANDARDS_BEGIN, meta, body, STANDARDS_END].join("\n").replace(/\n/g, eol);
}

export type Action = "create" | "append" | "refresh" | "none";

export type TargetPlan =
  | { kind: "write"; action: Exclude<Action, "none">; text: string }
  | { kind: "up-to-date" }
  | { kind: "kept"; reason: string }
  | { kind: "foreign"; reason: string };

/**
 * The next content of CLAUDE.md / AGENTS.md. `refresh` false (init) leaves
 * an existing peaks block alone; true (update) rewrites it.
 */
export async function planMarkdownTarget(
  current: string | undefined,
  body: string,
  refresh: boolean,
): Promise<TargetPlan> {
  if (current === undefined) {
    return { kind: "write", action: "create", text: `${await renderBlock(body)}\n` };
  }
  const eol = eolOf(current);
  const state = await classifyBlock(current);
  if (state.kind === "foreign") return state;
  if (state.kind === "none") {
    const sep = current === "" || current.endsWith("\n") ? "" : eol;
    const gap = current === "" ? "" : eol;
    return {
      kind: "write",
      action: "append",
      text: `${current}${sep}${gap}${await renderBlock(body, eol)}${eol}`,
    };
  }
  if (state.body === body) return { kind: "up-to-date" };
  if (!refresh) {
    return {
      kind: "kept",
      reason: "it already has a peaks standards block; `peaks standards update` refreshes it",
    };
  }
  const text = current.slice(0, state.start) + (await renderBlock(body, eol)) +
    current.slice(state.end);
  return { kind: "write", action: "refresh", text };
}

export async function renderOwnedFile(body: string): Promise<string> {
  return `<!-- peaks:standards:file v1 sha256:${await digest(
    body,
  )} (written by peaks standards; hand edits make it review-only) -->\n${body}\n`;
}

/** The next content of a peaks-owned file under .peaks/standards/. */
export async function planOwnedFile(
  current: string | undefined,
  body: string,
): Promise<TargetPlan> {
  const next = await renderOwnedFile(body);
  if (current === undefined) return { kind: "write", action: "create", text: next };
  if (current === next) return { kind: "up-to-date" };
  const normalized = current.replace(/\r\n/g, "\n");
  const newline = normalized.indexOf("\n");
  const meta = FILE_META.exec(newline === -1 ? normalized : normalized.slice(0, newline));
  if (!meta) return { kind: "foreign", reason: "it was not written by peaks (no digest line)" };
  const oldBody = normalized.slice(newline + 1).replace(/\n$/, "");
  if ((await digest(oldBody)) !== meta[1]) {
    return { kind: "foreign", reason: "it was edited by hand since peaks wrote it" };
  }
  return { kind: "write", action: "refresh", text: next };
}
