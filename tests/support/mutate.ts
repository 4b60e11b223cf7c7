/**
 * Mutation runs for the zod-free checks that stand in for a schema (state
 * shapes, the DAG check): random small changes to a valid value, so a test
 * can hold the check to the schema on values near the valid ones.
 */
import type { Rng } from "./prng.ts";

/** Values a mutation puts in a place: wrong types, empty and edge values. */
export const ODD_VALUES: readonly unknown[] = [
  "",
  "x",
  "dispatch-a.json",
  "2026-12-01T00:00:00.000Z",
  -1,
  0,
  1,
  1.5,
  2 ** 60,
  null,
  true,
  false,
  [],
  ["x"],
  [1],
  {},
  { a: 1 },
];

/**
 * A copy of `value` with one random place changed (to one of `odd`), removed,
 * or added to (a key `extra<n>` beside it).
 */
export function mutate(value: unknown, random: Rng, odd: readonly unknown[] = ODD_VALUES): unknown {
  const copy = structuredClone(value);
  const places: [Record<string, unknown> | unknown[], string | number][] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach((item, i) => (places.push([node, i]), visit(item)));
    else if (node && typeof node === "object") {
      for (const [key, item] of Object.entries(node)) {
        places.push([node as Record<string, unknown>, key]);
        visit(item);
      }
    }
  };
  visit(copy);
  if (!places.length) return random.pick(odd);
  const [parent, key] = random.pick(places);
  const action = random.int(0, 4);
  if (action === 0 && !Array.isArray(parent)) delete parent[key as string];
  else if (action === 1 && !Array.isArray(parent)) parent[`extra${random.int(0, 9)}`] = 1;
  else (parent as Record<string | number, unknown>)[key] = random.pick(odd);
  return copy;
}
