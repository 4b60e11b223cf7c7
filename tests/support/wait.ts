/** Polling for a condition a spawned process makes true, with a deadline. */

/** Calls `probe` every `pollMs` until it returns a value (not undefined or false). */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  deadlineMs: number,
  pollMs: number,
): Promise<T> {
  const end = Date.now() + deadlineMs;
  while (true) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
