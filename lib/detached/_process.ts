/**
 * The vendor process's plumbing: its signals, its pipes (read chunk by
 * chunk, drained for a bounded time), its stdin, and a kill that tolerates
 * a process already gone.
 */
import { within } from "../infra/timer.ts";

/** Listens for the signals that stop a supervisor; returns the undo. */
export function listenForSignals(onSignal: (name: Deno.Signal) => void): () => void {
  const cleanups: Array<() => void> = [];
  for (const name of supervisorSignals()) {
    const handler = () => onSignal(name);
    Deno.addSignalListener(name, handler);
    cleanups.push(() => Deno.removeSignalListener(name, handler));
  }
  return () => {
    for (const cleanup of cleanups) cleanup();
  };
}

function supervisorSignals(): Deno.Signal[] {
  return Deno.build.os === "windows" ? ["SIGINT", "SIGBREAK"] : ["SIGTERM", "SIGINT", "SIGHUP"];
}

export function kill(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch {
    // already gone
  }
}

/** Writes the prompt to the vendor's stdin and closes it; a vendor that exits early is fine. */
export function feed(child: Deno.ChildProcess, text: string): void {
  const writer = child.stdin.getWriter();
  writer.write(new TextEncoder().encode(text))
    .then(() => writer.close())
    .catch(() => writer.abort().catch(() => {}));
}

interface Pump {
  done: Promise<void>;
  reader: ReadableStreamDefaultReader<Uint8Array>;
}

/** Reads a pipe; each chunk is written before the next is read, so a fast vendor waits for the disk. */
export function pump(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => Promise<void>,
): Pump {
  const reader = stream.getReader();
  const done = (async () => {
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        if (value) await onChunk(value);
      }
    } catch {
      // cancelled or broken pipe: whatever arrived is in the log
    }
  })();
  return { done, reader };
}

export async function drain(pumps: Pump[], boundMs: number): Promise<void> {
  await within(Promise.all(pumps.map((p) => p.done)), boundMs);
  for (const p of pumps) await p.reader.cancel().catch(() => {});
  await Promise.all(pumps.map((p) => p.done));
}
