/**
 * A small seeded PRNG (mulberry32) for fault injection and property runs: the
 * same seed replays the same run, and every run prints its seed.
 */
export interface Rng {
  seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function rng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
  };
}

/** The seed from `name` in the environment, else a fresh one (printed by the caller). */
export function seedFromEnv(name: string, fallback?: number): number {
  const raw = Deno.env.get(name);
  if (raw && /^\d+$/.test(raw)) return Number(raw) >>> 0;
  return fallback ?? (crypto.getRandomValues(new Uint32Array(1))[0] >>> 0);
}

/** A positive integer from the environment, else `fallback`. */
export function countFromEnv(name: string, fallback: number): number {
  const raw = Deno.env.get(name);
  return raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : fallback;
}
