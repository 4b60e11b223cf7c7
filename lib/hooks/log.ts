/**
 * The hooks' log: one JSON line per problem under `.peaks/_runtime/hooks.log`, kept under
 * LOG_MAX_BYTES by moving a full log to `hooks.log.1`. A hook never prints its problems to the
 * host (some hosts take any output or exit code as a refusal); it logs them here. Logging itself
 * never throws.
 */
import { join } from "../infra/std.ts";

export const LOG_MAX_BYTES = 256 * 1024;
const LINE_MAX = 2000;

export async function logProblem(runtime: string | undefined, entry: Record<string, unknown>) {
  if (!runtime) return;
  try {
    const path = join(runtime, "hooks.log");
    const info = await Deno.lstat(path).catch(() => undefined);
    if (info && !info.isFile) return;
    if (info && info.size > LOG_MAX_BYTES) await Deno.rename(path, `${path}.1`);
    const line = JSON.stringify(entry).slice(0, LINE_MAX);
    // Only a workspace's own runtime folder: a hook never creates .peaks where there is none.
    if (!(await Deno.lstat(runtime).catch(() => undefined))?.isDirectory) return;
    await Deno.writeTextFile(path, `${line}\n`, { append: true });
  } catch {
    // Nowhere left to report it; the host's turn matters more.
  }
}
