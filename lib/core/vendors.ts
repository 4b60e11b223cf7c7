/**
 * The vendor CLIs that can run a sub-agent as a separate process, and which
 * of them are installed (found on PATH; on Windows with PATHEXT, so npm's
 * `.cmd` shims count).
 */
import type { Env } from "./ctx.ts";
import { join } from "./std.ts";

export const VENDORS = ["claude", "codex", "copilot", "gemini", "opencode"] as const;
export type Vendor = (typeof VENDORS)[number];

const windows = Deno.build.os === "windows";

function candidates(name: string, env: Env): string[] {
  if (!windows) return [name];
  const exts = (env.get("PATHEXT") ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean);
  return [name, ...exts.map((ext) => `${name}${ext.toLowerCase()}`), `${name}.cmd`];
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) return false;
    return windows || info.mode === null || (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The full path of `name` on PATH, or undefined. */
export async function findOnPath(name: string, env: Env): Promise<string | undefined> {
  const dirs = (env.get("PATH") ?? "").split(windows ? ";" : ":").filter(Boolean);
  for (const dir of dirs) {
    for (const file of candidates(name, env)) {
      const path = join(dir, file);
      if (await isExecutableFile(path)) return path;
    }
  }
  return undefined;
}

/** Installed vendors, in the table's order. */
export async function installedVendors(env: Env): Promise<Vendor[]> {
  const found = await Promise.all(VENDORS.map((v) => findOnPath(v, env)));
  return VENDORS.filter((_, i) => found[i] !== undefined);
}
