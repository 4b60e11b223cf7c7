import { dirname } from "../std.ts";
import { PeaksError } from "../errors.ts";
import { sleep } from "./files.ts";

/** Default bound on waiting for a lock; `PEAKS_LOCK_TIMEOUT_MS` overrides it. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

export function lockPathFor(target: string): string {
  return `${target}.lock`;
}

function configuredTimeout(): number {
  try {
    const raw = Deno.env.get("PEAKS_LOCK_TIMEOUT_MS");
    const parsed = raw ? Number(raw) : NaN;
    return Number.isFinite(parsed) && parsed > 0 ? parsed : DEFAULT_LOCK_TIMEOUT_MS;
  } catch {
    return DEFAULT_LOCK_TIMEOUT_MS;
  }
}

/**
 * Runs `fn` while holding an exclusive OS lock on the sidecar `<target>.lock`.
 * The OS drops the lock when its holder dies, so a killed writer never leaves
 * a lock behind (no reaping needed); the sidecar file itself is never deleted,
 * because unlinking a lock file lets two holders lock different inodes.
 * Waiting is bounded: past the timeout the caller gets LOCK_TIMEOUT naming the file.
 */
export async function withLock<T>(
  target: string,
  fn: () => Promise<T>,
  options: { timeoutMs?: number } = {},
): Promise<T> {
  const lockPath = lockPathFor(target);
  await Deno.mkdir(dirname(lockPath), { recursive: true });
  const file = await Deno.open(lockPath, { read: true, write: true, create: true });
  try {
    const timeoutMs = options.timeoutMs ?? configuredTimeout();
    const deadline = performance.now() + timeoutMs;
    let delay = 1;
    while (!(await file.tryLock(true))) {
      if (performance.now() >= deadline) {
        throw new PeaksError(
          "LOCK_TIMEOUT",
          `Timed out after ${timeoutMs} ms waiting for the lock on ${target}; another peaks process is still writing it. Retry the command.`,
          { data: { path: target, lockPath, timeoutMs } },
        );
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 25);
    }
    try {
      return await fn();
    } finally {
      await file.unlock().catch(() => {});
    }
  } finally {
    file.close();
  }
}

/**
 * True while another process (or another handle in this one) holds the lock
 * on `target`; false when the sidecar is free or does not exist. Lets a
 * reader tell an operation in progress from one whose writer died.
 */
export async function isLocked(target: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(lockPathFor(target), { read: true, write: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  try {
    if (!(await file.tryLock(true))) return true;
    await file.unlock().catch(() => {});
    return false;
  } finally {
    file.close();
  }
}
