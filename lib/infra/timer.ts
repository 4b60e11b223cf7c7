/**
 * Timers that cost nothing to start. In Deno the first `setTimeout` or
 * `setInterval` of a process loads the runtime's Node-compatible timer
 * classes: about 12 ms on a 2-core machine, more than a heartbeat's own work.
 * `AbortSignal.timeout` runs on the runtime's native timer queue instead, so
 * the sleeps, deadlines and repeating beats of the hot paths are built on it.
 *
 * Such a timer keeps the process alive only while a listener waits on it:
 * a cancelled one (its listener removed) lets the process exit at once.
 */

/** A one-shot timer: `done` resolves after `ms` unless `cancel()` came first. */
export interface Timer {
  readonly done: Promise<void>;
  cancel(): void;
}

/** The longest single delay the runtime's timer queue takes; a longer one fires at once. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export function after(ms: number): Timer {
  let cancel = () => {};
  const done = new Promise<void>((resolve) => {
    const arm = (left: number) => {
      const step = Math.min(left, MAX_DELAY_MS);
      const signal = AbortSignal.timeout(step);
      const fire = () => left > step ? arm(left - step) : resolve();
      signal.addEventListener("abort", fire, { once: true });
      cancel = () => signal.removeEventListener("abort", fire);
    };
    arm(Math.max(0, Math.ceil(ms)));
  });
  return { done, cancel: () => cancel() };
}

export function sleep(ms: number): Promise<void> {
  return after(ms).done;
}

/** Calls `fn` every `ms` until the returned stop function is called. */
export function every(ms: number, fn: () => void): () => void {
  let current: Timer | undefined;
  let stopped = false;
  const arm = () => {
    current = after(ms);
    current.done.then(() => {
      if (stopped) return;
      fn();
      arm();
    });
  };
  arm();
  return () => {
    stopped = true;
    current?.cancel();
  };
}

/** Settles like `work`, or resolves to `undefined` once `ms` pass first. */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  const timer = after(ms);
  try {
    return await Promise.race([work, timer.done.then(() => undefined)]);
  } finally {
    timer.cancel();
  }
}
