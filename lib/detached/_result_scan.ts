/**
 * Finds the sub-agent's return JSON at the end of its log, best effort: as
 * plain text, or inside the JSON a vendor wraps its final message in
 * (claude's `result`, codex's agent message). The template from the prompt
 * (`"<path>"` placeholders) never counts.
 */
import { confineState } from "../infra/fs/confine.ts";
import { recordSchemas, type SubAgentResult } from "../state/record.ts";
import { z } from "../infra/zod.ts";

const TAIL_BYTES = 256 * 1024;
const MAX_TRIES = 64;

/** Index of the brace closing the object that opens at `start`, honouring strings. */
function closingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

function isTemplate(result: SubAgentResult): boolean {
  return result.artefacts.includes("<path>") || result.diffSummary === "<files changed and why>";
}

function lastResultIn(text: string): SubAgentResult | null {
  let at = text.lastIndexOf('"role"');
  for (let tries = 0; at >= 0 && tries < MAX_TRIES; tries++) {
    const open = text.lastIndexOf("{", at);
    const close = open >= 0 ? closingBrace(text, open) : -1;
    if (close > at) {
      try {
        const parsed = recordSchemas(z).SubAgentResultSchema.safeParse(
          JSON.parse(text.slice(open, close + 1)),
        );
        if (parsed.success && !isTemplate(parsed.data)) return parsed.data;
      } catch {
        // not JSON after all
      }
    }
    at = text.lastIndexOf('"role"', at - 1);
  }
  return null;
}

function strings(value: unknown, into: string[], depth: number): void {
  if (depth > 6) return;
  if (typeof value === "string") {
    if (value.includes('"role"')) into.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) strings(item, into, depth + 1);
  } else if (value && typeof value === "object") {
    for (const item of Object.values(value)) strings(item, into, depth + 1);
  }
}

export function findResult(text: string): SubAgentResult | null {
  const direct = lastResultIn(text);
  if (direct) return direct;
  const lines = text.split("\n").reverse();
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{") || !trimmed.includes("role")) continue;
    const found: string[] = [];
    try {
      strings(JSON.parse(trimmed), found, 0);
    } catch {
      continue;
    }
    for (const candidate of found.reverse()) {
      const result = lastResultIn(candidate);
      if (result) return result;
    }
  }
  return null;
}

/** Reads the log's tail and looks for the return JSON there. */
export async function resultFromLog(path: string): Promise<SubAgentResult | null> {
  try {
    // The log lives in a state folder: reached through real folders only, and opened only as a regular file.
    await confineState(path);
    if (!(await Deno.lstat(path)).isFile) return null;
    const file = await Deno.open(path, { read: true });
    try {
      const size = (await file.stat()).size;
      const start = Math.max(0, size - TAIL_BYTES);
      await file.seek(start, Deno.SeekMode.Start);
      const buffer = new Uint8Array(size - start);
      let read = 0;
      while (read < buffer.length) {
        const n = await file.read(buffer.subarray(read));
        if (n === null) break;
        read += n;
      }
      return findResult(new TextDecoder().decode(buffer.subarray(0, read)));
    } finally {
      file.close();
    }
  } catch {
    return null;
  }
}
