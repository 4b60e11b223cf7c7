/**
 * Cross-process locks: an OS lock on a sidecar `<target>.lock`, released by
 * the OS when its holder dies (no stale-lock reaping).
 *
 * A writer that finds the lock taken waits for it in the OS (a blocking lock,
 * no polling), so every release hands the lock straight to a waiter. The
 * bound on that wait follows the work, not the clock: a holder that took the
 * lock from the queue writes a fresh token into the sidecar, every holder
 * writes one again every few moments while it works, and a waiter only gives up when that token stops
 * changing for the lock timeout (the holder is frozen) or one holder keeps the
 * lock for HOLD_FACTOR timeouts. A long queue that keeps moving is waited
 * out, however long it is; a stuck holder is reported with LOCK_TIMEOUT.
 */
import { dirname } from "../std.ts";
import { PeaksError } from "../errors.ts";
import { isNotFound } from "../errors.ts";
import { commandLine } from "../shell.ts";
import { confineState, kindOf } from "./confine.ts";
import { randomHex } from "../ids.ts";
import { every, within } from "../timer.ts";

/** Default bound on the lock not changing hands; `PEAKS_LOCK_TIMEOUT_MS` overrides it. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** One holder may keep a lock this many timeouts (while it shows progress) before waiters give up. */
export const HOLD_FACTOR = 6;

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

/** A sidecar that is a symlink or a special file is never opened (a dangling link would create a file elsewhere). */
async function checkSidecar(lockPath: string): Promise<void> {
  await confineState(lockPath);
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(lockPath);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  if (info.isFile) return;
  throw new PeaksError(
    info.isSymlink ? "SYMLINK_REFUSED" : "NOT_A_REGULAR_FILE",
    `The lock file ${lockPath} is ${
      kindOf(info)
    }; peaks only locks regular files it created. Remove it (it holds no data) and retry.`,
    { data: { path: lockPath }, nextActions: [commandLine(["rm", lockPath])] },
  );
}

const encoder = new TextEncoder();

/** The holder's side: a token that changes on every take and every beat. */
class Turn {
  readonly #file: Deno.FsFile;
  readonly #id = randomHex(8);
  #beat = 0;

  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** A few bytes at the start of the sidecar: a synchronous write, done before anything else runs. */
  mark(): void {
    const token = encoder.encode(`${this.#id}:${String(this.#beat++).padStart(10, "0")}\n`);
    try {
      this.#file.seekSync(0, Deno.SeekMode.Start);
      this.#file.writeSync(token);
    } catch {
      // a beat not written only makes the holder look slower to its waiters; the lock holds
    }
  }
}

async function readToken(lockPath: string): Promise<string> {
  try {
    return new TextDecoder().decode(await Deno.readFile(lockPath));
  } catch {
    return "";
  }
}

function timeoutError(target: string, lockPath: string, why: string, timeoutMs: number) {
  return new PeaksError(
    "LOCK_TIMEOUT",
    `Gave up waiting for the lock on ${target}: ${why}. Another peaks process is stuck while writing it; retry the command, and if it keeps failing find that process.`,
    { data: { path: target, lockPath, timeoutMs } },
  );
}

/** Waits in the OS queue until the lock is ours, or throws LOCK_TIMEOUT when the queue stops moving. */
async function waitTurn(
  file: Deno.FsFile,
  paths: { target: string; lockPath: string },
  timeoutMs: number,
): Promise<void> {
  let won = false;
  const locked = file.lock(true).then(() => (won = true));
  // After a timeout the handle is closed; the pending request then ends on its own.
  locked.catch(() => {});
  const poll = Math.max(5, Math.min(250, timeoutMs / 4));
  let seen = await readToken(paths.lockPath);
  let holder = seen.split(":")[0];
  let changedAt = performance.now();
  let heldSince = changedAt;
  while (!won) {
    await within(locked, poll);
    if (won) return;
    const token = await readToken(paths.lockPath);
    const now = performance.now();
    if (token !== seen) {
      seen = token;
      changedAt = now;
      if (token.split(":")[0] !== holder) {
        holder = token.split(":")[0];
        heldSince = now;
      }
    }
    if (now - changedAt >= timeoutMs) {
      throw timeoutError(
        paths.target,
        paths.lockPath,
        `its holder showed no progress for ${timeoutMs} ms`,
        timeoutMs,
      );
    }
    if (now - heldSince >= timeoutMs * HOLD_FACTOR) {
      throw timeoutError(
        paths.target,
        paths.lockPath,
        `one holder kept it for over ${timeoutMs * HOLD_FACTOR} ms`,
        timeoutMs,
      );
    }
  }
}

/** Lets go of an OS lock; a failure is harmless, since closing the handle lets it go as well. */
function release(file: Deno.FsFile): void {
  try {
    file.unlockSync();
  } catch {
    // the close that follows releases it
  }
}

/**
 * What this process spent on locks, for the `PEAKS_PROFILE=1` line
 * (lib/cli/main.ts): turns taken, time from asking to holding (waiting, a
 * rehearsal included), and time holding.
 */
export const lockTime = { turns: 0, waitMs: 0, holdMs: 0 };

export interface LockOptions {
  /** Bound on the lock not changing hands (see the module comment); PEAKS_LOCK_TIMEOUT_MS otherwise. */
  timeoutMs?: number;
  /**
   * Run once when the lock is found taken, before waiting for it: work that
   * makes the turn shorter (see updateJson). Its errors are ignored.
   */
  whileBusy?: () => Promise<unknown>;
}

/**
 * Runs `fn` while holding an exclusive OS lock on the sidecar `<target>.lock`.
 * The OS drops the lock when its holder dies, so a killed writer never leaves
 * a lock behind (no reaping needed); the sidecar file itself is never deleted,
 * because unlinking a lock file lets two holders lock different inodes.
 * `timeoutMs` bounds how long the lock may go without changing hands or
 * showing progress (see the module comment), not the whole wait.
 */
export async function withLock<T>(
  target: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const lockPath = lockPathFor(target);
  await checkSidecar(lockPath);
  Deno.mkdirSync(dirname(lockPath), { recursive: true });
  const file = Deno.openSync(lockPath, { read: true, write: true, create: true });
  try {
    const timeoutMs = options.timeoutMs ?? configuredTimeout();
    const asked = performance.now();
    let waited = !file.tryLockSync(true);
    if (waited && options.whileBusy) {
      // Not yet in the queue, so the lock is never held while this runs.
      try {
        await options.whileBusy();
      } catch {
        // a rehearsal's failure is the real run's to report
      }
      waited = !file.tryLockSync(true);
    }
    if (waited) await waitTurn(file, { target, lockPath }, timeoutMs);
    const held = performance.now();
    const turn = new Turn(file);
    // A lock taken from a queue says so to the rest of the queue; one taken
    // free writes nothing, so an uncontended command leaves the sidecar as it was.
    if (waited) turn.mark();
    const stopBeat = every(Math.max(5, timeoutMs / 4), () => turn.mark());
    try {
      return await fn();
    } finally {
      stopBeat();
      release(file);
      lockTime.turns++;
      lockTime.waitMs += held - asked;
      lockTime.holdMs += performance.now() - held;
    }
  } finally {
    file.close();
  }
}

/**
 * True while another process (or another handle in this one) holds the lock
 * on `target`; false when the sidecar is free, does not exist, or is not a
 * regular file. Lets a reader tell an operation in progress from one whose
 * writer died.
 */
export async function isLocked(target: string): Promise<boolean> {
  const lockPath = lockPathFor(target);
  await confineState(lockPath);
  try {
    if (!Deno.lstatSync(lockPath).isFile) return false;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(lockPath, { read: true, write: true });
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
  try {
    if (!file.tryLockSync(true)) return true;
    release(file);
    return false;
  } finally {
    file.close();
  }
}
