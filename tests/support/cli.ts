/**
 * Runs the real entry point the way the compiled binary runs: the permission
 * set from deno.json (-P=peaks), an explicit environment, a temp cwd.
 */
import { fromFileUrl, join } from "../../lib/infra/std.ts";
import { V8_FLAGS } from "../../lib/infra/command/build.ts";

export const REPO = fromFileUrl(new URL("../../", import.meta.url));
export const ENTRY = join(REPO, "peaks.ts");
export const CONFIG = join(REPO, "deno.json");

let denoDir: string | undefined;

/** The Deno cache in use, so children with a cleared env still find the modules. */
export async function cacheDir(): Promise<string> {
  if (denoDir) return denoDir;
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return (denoDir = fromEnv);
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  denoDir = JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
  return denoDir;
}

/** The deno arguments that run peaks with exactly the binary's permissions. */
export function peaksArgs(args: string[]): string[] {
  return scriptArgs(ENTRY, args);
}

/**
 * The deno arguments that run another script (a test's helper, a probe) with the binary's
 * permissions and runtime flags, so it sees what peaks would; `denoFlags` go before the config.
 */
export function scriptArgs(
  script: string,
  args: string[] = [],
  denoFlags: string[] = [],
): string[] {
  return [
    "run",
    "-q",
    "--frozen",
    "--cached-only",
    "-P=peaks",
    V8_FLAGS,
    ...denoFlags,
    "--config",
    CONFIG,
    script,
    ...args,
  ];
}

export interface RunOptions {
  cwd: string;
  /** Extra variables; the child sees only these plus HOME, PATH, DENO_DIR, NO_COLOR. */
  env?: Record<string, string>;
  /** Text on stdin; stdin is closed (empty) when omitted. */
  stdin?: string;
  home?: string;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The parsed envelope when stdout holds exactly one JSON document. */
  // deno-lint-ignore no-explicit-any
  json: any;
}

export async function baseEnv(
  options: { home?: string; cwd: string },
): Promise<Record<string, string>> {
  const audit = Deno.env.get("PEAKS_AUDIT_DIR");
  return {
    HOME: options.home ?? join(options.cwd, ".home-not-used"),
    PATH: Deno.env.get("PATH") ?? "",
    DENO_DIR: await cacheDir(),
    NO_COLOR: "1",
    // The permission audit (tests/permissions/audit.ts): Deno logs every permission check.
    ...(audit ? { DENO_AUDIT_PERMISSIONS: join(audit, `${crypto.randomUUID()}.jsonl`) } : {}),
  };
}

export async function runPeaks(args: string[], options: RunOptions): Promise<RunResult> {
  const env = { ...(await baseEnv(options)), ...(options.env ?? {}) };
  const child = new Deno.Command(Deno.execPath(), {
    args: peaksArgs(args),
    cwd: options.cwd,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (options.stdin !== undefined) await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  // deno-lint-ignore no-explicit-any
  let json: any = undefined;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code: out.code, stdout, stderr, json };
}

/** Runs `count` tasks with at most `limit` in flight; results keep their order. */
export async function pool<T>(
  count: number,
  limit: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, count) }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  });
  await Promise.all(workers);
  return results;
}
