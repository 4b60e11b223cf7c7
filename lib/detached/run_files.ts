/**
 * The supervisor's side of a run folder: the pid lease (locked before its
 * name appears, held until it is removed last), owner-session, status.json,
 * the append-only log and exit.json. Every JSON file is written atomically.
 */
import { ensureDir, movePath, removePath, writeJsonAtomic } from "../infra/fs/files.ts";
import { confineState } from "../infra/fs/confine.ts";
import { probeLease, type RunExit, runFile, type RunOwner, type RunStatus } from "./runs.ts";
import { PeaksError } from "../infra/errors.ts";
import { randomHex } from "../infra/ids.ts";

const encoder = new TextEncoder();

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** The log keeps the first LOG_MAX_BYTES of the vendor's output, then one line saying it stopped. */
export const LOG_MAX_BYTES = 16 * 1024 * 1024;

export class RunFiles {
  #lease: Deno.FsFile | undefined;
  #log: Deno.FsFile | undefined;
  #logQueue: Promise<void> = Promise.resolve();
  #logBytes = 0;

  constructor(readonly dir: string) {}

  /**
   * Takes the lease: a temp file is locked and filled with our pid, then
   * renamed to `pid`, so a probe never finds the name unlocked while we live.
   */
  async takeLease(): Promise<void> {
    const pidPath = runFile(this.dir, "pid");
    if ((await probeLease(pidPath)) === "alive") {
      throw new PeaksError(
        "RUN_ALREADY_SUPERVISED",
        `Another supervisor already runs ${this.dir}; nothing was started.`,
        { data: { runDir: this.dir } },
      );
    }
    const temp = `${pidPath}.${randomHex(8)}.tmp`;
    await ensureDir(this.dir);
    const file = await Deno.open(temp, { read: true, write: true, createNew: true });
    try {
      await file.lock(true);
      await writeAll(file, encoder.encode(`${Deno.pid}\n`));
      await file.syncData();
      await movePath(temp, pidPath);
    } catch (error) {
      file.close();
      await removePath(temp);
      throw error;
    }
    this.#lease = file;
  }

  /** Removes the pid file, then lets go of the lock: the very last thing a supervisor does. */
  async releaseLease(): Promise<void> {
    if (!this.#lease) return;
    await removePath(runFile(this.dir, "pid")).catch(() => {});
    try {
      this.#lease?.close();
    } catch {
      // already closed
    }
    this.#lease = undefined;
  }

  writeOwner(owner: RunOwner): Promise<void> {
    return writeJsonAtomic(runFile(this.dir, "owner"), owner);
  }

  writeStatus(status: RunStatus): Promise<void> {
    return writeJsonAtomic(runFile(this.dir, "status"), status);
  }

  writeExit(exit: RunExit): Promise<void> {
    return writeJsonAtomic(runFile(this.dir, "exit"), exit);
  }

  async openLog(): Promise<void> {
    const path = runFile(this.dir, "log");
    await confineState(path);
    this.#logBytes = await Deno.lstat(path).then((i) => i.size, () => 0);
    this.#log = await Deno.open(path, {
      write: true,
      create: true,
      append: true,
    });
  }

  /** Appends one chunk as it arrives (no buffering), in arrival order, up to LOG_MAX_BYTES. */
  appendLog(chunk: Uint8Array): Promise<void> {
    const log = this.#log;
    if (!log || this.#logBytes >= LOG_MAX_BYTES) return Promise.resolve();
    const room = LOG_MAX_BYTES - this.#logBytes;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#logBytes += part.length;
    const tail = part.length < chunk.length
      ? encoder.encode(`\n[peaks: log.txt stopped at ${LOG_MAX_BYTES} bytes]\n`)
      : undefined;
    this.#logQueue = this.#logQueue.then(async () => {
      await writeAll(log, part);
      if (tail) await writeAll(log, tail);
    }).catch(() => {});
    return this.#logQueue;
  }

  async closeLog(): Promise<void> {
    await this.#logQueue;
    try {
      this.#log?.close();
    } catch {
      // already closed
    }
    this.#log = undefined;
  }

  async stopRequested(): Promise<boolean> {
    return await Deno.lstat(runFile(this.dir, "stop")).then(() => true, () => false);
  }

  async removeTransient(): Promise<void> {
    if (!this.#lease) return;
    await removePath(runFile(this.dir, "stop")).catch(() => {});
    await removePath(runFile(this.dir, "owner")).catch(() => {});
  }
}
