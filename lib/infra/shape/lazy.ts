/**
 * A state file's schema as a hot command holds it: the shape (a fast yes
 * without zod) and a loader for the zod schema, which decides every value
 * the shape doubts. `checkState` is the one way such a value is checked.
 */
import type { z } from "zod";
import { fits, type Shape } from "./shape.ts";

export interface StateSchema<T> {
  readonly shape: Shape;
  load(): Promise<z.ZodType<T>>;
}

export function stateSchema<T>(shape: Shape, load: () => Promise<z.ZodType<T>>): StateSchema<T> {
  let loaded: Promise<z.ZodType<T>> | undefined;
  return { shape, load: () => loaded ??= load() };
}

export type AnySchema<T> = z.ZodType<T> | StateSchema<T>;

export type Checked<T> = { success: true; data: T } | { success: false; error: z.ZodError };

function isStateSchema<T>(schema: AnySchema<T>): schema is StateSchema<T> {
  return "shape" in schema && "load" in schema;
}

/** `schema.safeParse(value)`, without loading zod when the shape vouches for the value. */
export async function checkState<T>(schema: AnySchema<T>, value: unknown): Promise<Checked<T>> {
  if (!isStateSchema(schema)) return schema.safeParse(value) as Checked<T>;
  if (fits(schema.shape, value)) return { success: true, data: value as T };
  return (await schema.load()).safeParse(value) as Checked<T>;
}

/** zod's namespace, as a state kind's schema builder receives it. */
export type Zod = typeof import("../zod.ts").z;

/**
 * A state kind's zod schemas, built on first use from the zod the caller
 * passes: the state file itself loads no zod, so hot commands can import its
 * words and version for free.
 */
export function schemas<T>(build: (z: Zod) => T): (z: Zod) => T {
  let built: T | undefined;
  return (z) => built ??= build(z);
}

/** Loads zod, then the schemas: for a reader that needs them only when a shape doubts. */
export async function loadSchemas<T>(of: (z: Zod) => T): Promise<T> {
  const { z } = await import("../zod.ts");
  return of(z);
}
