/**
 * Shapes: the zod schemas of the state files a hot command reads, written
 * out as plain data (shapes.ts, generated from the schemas by
 * `deno task shapes`) so a heartbeat can vouch for a record without loading
 * zod's ninety-odd modules. A shape only ever says "this value is one the
 * schema accepts unchanged"; anything else (a field it cannot judge, a
 * default to fill, a key the schema would strip, a wrong value) is a doubt,
 * and the caller then loads the schema itself, which decides and words the
 * error. zod stays the single authority; the shape is its fast yes.
 */

export type Shape =
  | { t: "string"; min?: number; max?: number; re?: [string, string][] }
  | { t: "number"; int?: true; min?: [number, boolean]; max?: [number, boolean] }
  | { t: "boolean" }
  | { t: "unknown" }
  | { t: "values"; v: (string | number | boolean | null)[] }
  | { t: "nullable"; s: Shape }
  | { t: "optional"; s: Shape }
  | { t: "array"; s: Shape; min?: number; max?: number }
  | { t: "tuple"; items: Shape[] }
  | { t: "record"; v: Shape }
  | { t: "object"; keys: Record<string, Shape>; extra: "keep" | "strip" | "refuse" }
  | { t: "union"; options: Shape[] }
  | { t: "doubt" };

const compiled = new Map<string, RegExp>();

function regex(source: string, flags: string): RegExp {
  const key = `${flags}/${source}`;
  let re = compiled.get(key);
  if (!re) compiled.set(key, re = new RegExp(source, flags));
  re.lastIndex = 0;
  return re;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringFits(shape: Extract<Shape, { t: "string" }>, value: unknown): boolean {
  if (typeof value !== "string") return false;
  if (shape.min !== undefined && value.length < shape.min) return false;
  if (shape.max !== undefined && value.length > shape.max) return false;
  return (shape.re ?? []).every(([source, flags]) => regex(source, flags).test(value));
}

function numberFits(shape: Extract<Shape, { t: "number" }>, value: unknown): boolean {
  if (typeof value !== "number" || !Number.isFinite(value)) return false;
  if (shape.int && !Number.isSafeInteger(value)) return false;
  if (shape.min && (shape.min[1] ? value < shape.min[0] : value <= shape.min[0])) return false;
  return !shape.max || (shape.max[1] ? value <= shape.max[0] : value < shape.max[0]);
}

// The walk below runs on every record a hot command reads or writes (a full
// record holds a hundred beats), mostly before V8 has compiled it: plain loops,
// no closures or arrays built per object.
function objectFits(shape: Extract<Shape, { t: "object" }>, value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const keys = shape.keys;
  for (const key in keys) {
    const item = Object.hasOwn(value, key) ? value[key] : undefined;
    if (item === undefined) {
      if (keys[key].t !== "optional") return false;
    } else if (!fits(keys[key], item)) return false;
  }
  if (shape.extra === "keep") return true;
  for (const key in value) {
    if (Object.hasOwn(value, key) && !Object.hasOwn(keys, key)) return false;
  }
  return true;
}

function itemsFit(shape: Shape, items: unknown[]): boolean {
  for (let i = 0; i < items.length; i++) if (!fits(shape, items[i])) return false;
  return true;
}

/** True when the schema behind `shape` accepts `value` and returns it unchanged. */
export function fits(shape: Shape, value: unknown): boolean {
  switch (shape.t) {
    case "string":
      return stringFits(shape, value);
    case "number":
      return numberFits(shape, value);
    case "boolean":
      return typeof value === "boolean";
    case "unknown":
      return value !== undefined;
    case "values":
      return shape.v.includes(value as string);
    case "nullable":
      return value === null || fits(shape.s, value);
    case "optional":
      return value !== undefined && fits(shape.s, value);
    case "array":
      return Array.isArray(value) &&
        (shape.min === undefined || value.length >= shape.min) &&
        (shape.max === undefined || value.length <= shape.max) &&
        itemsFit(shape.s, value);
    case "tuple":
      return Array.isArray(value) && value.length === shape.items.length &&
        shape.items.every((item, i) => fits(item, value[i]));
    case "record":
      return isPlainObject(value) && itemsFit(shape.v, Object.values(value));
    case "object":
      return objectFits(shape, value);
    case "union":
      // zod answers with the first option that accepts; only that one is vouched for.
      return shape.options.length > 0 && fits(shape.options[0], value);
    case "doubt":
      return false;
  }
}
