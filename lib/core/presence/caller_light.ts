/**
 * Which window is calling: presence is kept per caller when the host names
 * its window. Zod-free, because the status line asks on every render.
 */
import type { Env } from "../command/ctx.ts";
import { isValidId } from "../ids.ts";

/** Environment variables that identify the caller's window, in order of preference. */
export const CALLER_ID_VARIABLES = ["PEAKS_CALLER_ID", "CLAUDE_CODE_SESSION_ID"] as const;

/** Makes any caller id usable as a file name (long or odd ids are hashed). */
export async function callerFileId(raw: string): Promise<string> {
  if (isValidId(raw) && raw.length <= 64) return raw;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(raw));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return `h-${hex.slice(0, 24)}`;
}

export async function callerIdFromEnv(env: Env): Promise<string | undefined> {
  for (const name of CALLER_ID_VARIABLES) {
    const value = env.get(name)?.trim();
    if (value) return await callerFileId(value);
  }
  return undefined;
}
