/**
 * The vendor CLIs that can run a sub-agent as a separate process, and which
 * of them are installed (found on PATH; on Windows with PATHEXT, so npm's
 * `.cmd` shims count).
 */
import type { Env } from "../infra/command/ctx.ts";
import { join } from "../infra/std.ts";

/** The `vendor` of every host file that has one (tests/hosts_registry_test.ts holds them equal). */
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

export interface VendorChoice {
  /** The vendor that will run; undefined when none is installed. */
  vendor: Vendor | undefined;
  /** The vendor asked for, when a different one had to be used instead. */
  fallbackFrom: Vendor | null;
  installed: Vendor[];
}

/**
 * The vendor for a detached run: the requested one when installed; else
 * `preferred` (the host's own vendor) when installed; else the first
 * installed one in the table's order. No vendor installed: undefined.
 */
export async function chooseVendor(
  env: Env,
  requested: Vendor | undefined,
  preferred?: Vendor,
): Promise<VendorChoice> {
  const installed = await installedVendors(env);
  if (requested && installed.includes(requested)) {
    return { vendor: requested, fallbackFrom: null, installed };
  }
  const fallback = preferred && installed.includes(preferred) ? preferred : installed[0];
  return {
    vendor: fallback,
    fallbackFrom: requested && fallback ? requested : null,
    installed,
  };
}

/**
 * What to hand Deno.Command for a vendor. On POSIX the bare name: Deno
 * resolves it through PATH exactly as it resolved the run allow-list. On
 * Windows the file itself (`.cmd` shims are not found by name), spelled the
 * way the allow-list granted it when one of the spellings is granted.
 */
export async function vendorCommand(vendor: Vendor, env: Env): Promise<string | undefined> {
  if (!windows) return (await findOnPath(vendor, env)) ? vendor : undefined;
  const dirs = (env.get("PATH") ?? "").split(";").filter(Boolean);
  let first: string | undefined;
  for (const dir of dirs) {
    for (const file of candidates(vendor, env)) {
      const path = join(dir, file);
      if (!(await isExecutableFile(path))) continue;
      first ??= path;
      const spellings = [path, path.replace(/\.[^.\\/]+$/, (ext) => ext.toUpperCase())];
      for (const spelling of spellings) {
        if (Deno.permissions.querySync({ name: "run", command: spelling }).state === "granted") {
          return spelling;
        }
      }
    }
  }
  return first;
}
