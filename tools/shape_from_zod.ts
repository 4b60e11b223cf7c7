/**
 * Writes a zod schema out as a Shape (shape.ts). Whatever the walk cannot
 * judge exactly (refinements, transforms, defaults that would fill a
 * missing value, lazy schemas) becomes a doubt, so a shape never says yes
 * where the schema would say no or change the value. Used by
 * `deno task shapes` and by the test that keeps shapes.ts in step; never at
 * run time.
 */
import type { z } from "zod";
import type { Shape } from "../lib/infra/shape/shape.ts";

// deno-lint-ignore no-explicit-any
type Def = any;

const def = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

function checksOf(d: Def): Def[] {
  return (d.checks ?? []).map((c: { _zod: { def: Def } }) => c._zod.def);
}

function stringShape(d: Def): Shape {
  // z.url(), z.email() and the other formats carry their check on the schema itself.
  if (d.format !== undefined) return { t: "doubt" };
  const shape: Extract<Shape, { t: "string" }> = { t: "string" };
  for (const c of checksOf(d)) {
    if (c.check === "min_length") shape.min = Math.max(shape.min ?? 0, c.minimum);
    else if (c.check === "max_length") shape.max = Math.min(shape.max ?? Infinity, c.maximum);
    else if (c.check === "string_format" && c.format === "regex") {
      (shape.re ??= []).push([c.pattern.source, c.pattern.flags.replace("g", "")]);
    } else return { t: "doubt" };
  }
  return shape;
}

function numberShape(d: Def): Shape {
  if (d.format !== undefined && d.format !== "safeint") return { t: "doubt" };
  const shape: Extract<Shape, { t: "number" }> = { t: "number" };
  if (d.format === "safeint") shape.int = true;
  for (const c of checksOf(d)) {
    if (c.check === "number_format" && c.format === "safeint") shape.int = true;
    else if (c.check === "greater_than") shape.min = [c.value, c.inclusive];
    else if (c.check === "less_than") shape.max = [c.value, c.inclusive];
    else return { t: "doubt" };
  }
  return shape;
}

function arrayShape(d: Def): Shape {
  const shape: Extract<Shape, { t: "array" }> = { t: "array", s: shapeOf(d.element) };
  for (const c of checksOf(d)) {
    if (c.check === "min_length") shape.min = c.minimum;
    else if (c.check === "max_length") shape.max = c.maximum;
    else return { t: "doubt" };
  }
  return shape;
}

function objectShape(d: Def): Shape {
  const keys: Record<string, Shape> = {};
  for (const [key, value] of Object.entries(d.shape as Record<string, z.ZodType>)) {
    keys[key] = shapeOf(value);
  }
  const catchall = d.catchall ? def(d.catchall).type : undefined;
  const extra = catchall === undefined
    ? "strip"
    : catchall === "unknown" || catchall === "any"
    ? "keep"
    : catchall === "never"
    ? "refuse"
    : undefined;
  return extra ? { t: "object", keys, extra } : { t: "doubt" };
}

const simple: Record<string, (d: Def) => Shape> = {
  string: stringShape,
  number: numberShape,
  boolean: () => ({ t: "boolean" }),
  unknown: () => ({ t: "unknown" }),
  any: () => ({ t: "unknown" }),
  enum: (d) => ({ t: "values", v: Object.values(d.entries) }),
  literal: (d) => ({ t: "values", v: [...d.values] }),
  nullable: (d) => ({ t: "nullable", s: shapeOf(d.innerType) }),
  optional: (d) => ({ t: "optional", s: shapeOf(d.innerType) }),
  // A present value is checked as the inner schema; a missing one would be filled in: a doubt.
  default: (d) => shapeOf(d.innerType),
  array: arrayShape,
  tuple: (d) => d.rest ? { t: "doubt" } : { t: "tuple", items: d.items.map(shapeOf) },
  record: (d) =>
    def(d.keyType).type === "string" && checksOf(def(d.keyType)).length === 0
      ? { t: "record", v: shapeOf(d.valueType) }
      : { t: "doubt" },
  object: objectShape,
  union: (d) => ({ t: "union", options: d.options.map(shapeOf) }),
};

/** The shape of `schema`; `doubt` wherever the walk cannot vouch for the schema's answer. */
export function shapeOf(schema: z.ZodType): Shape {
  const d = def(schema);
  const make = simple[d.type];
  if (!make) return { t: "doubt" };
  if (d.type !== "string" && d.type !== "number" && d.type !== "array" && checksOf(d).length) {
    return { t: "doubt" };
  }
  return make(d);
}
