/**
 * The flag builders: each flag carries the zod schema that checks its raw
 * value. Kept apart from spec.ts so a command without flags (the status
 * line) never loads zod.
 */
import { z } from "../zod.ts";
import { type FlagDef, formatDuration, parseDuration } from "./spec.ts";

interface Common {
  placeholder?: string;
  hidden?: boolean;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function text(min: number, max: number, allowControl: boolean) {
  let schema = z.string()
    .min(min, min <= 1 ? "needs a value" : `needs at least ${min} characters`)
    .max(max, `is longer than ${max} characters`);
  if (!allowControl) {
    schema = schema.refine((v) => !CONTROL.test(v), "must not contain control characters");
  }
  return schema;
}

type Built<T, O> = FlagDef<T, "string"> & Pick<O, Extract<keyof O, "default" | "required">>;

export const flag = {
  boolean(description: string, options: Common = {}): FlagDef<boolean, "boolean"> {
    return { kind: "boolean", description, default: false, ...options, schema: z.boolean() };
  },

  string<const O extends Common & { default?: string; required?: boolean }>(
    description: string,
    options: O & { min?: number; max?: number; allowControl?: boolean } = {} as O,
  ): Built<string, O> {
    const { min = 1, max = 1_000_000, allowControl = false, ...rest } = options;
    return {
      kind: "string",
      description,
      placeholder: "<text>",
      ...rest,
      schema: text(min, max, allowControl),
    } as unknown as Built<string, O>;
  },

  enum<
    const V extends readonly [string, ...string[]],
    const O extends Common & { default?: V[number]; required?: boolean },
  >(values: V, description: string, options: O = {} as O): Built<V[number], O> {
    return {
      kind: "string",
      description,
      placeholder: `<${values.join("|")}>`,
      values,
      ...options,
      schema: z.enum(values, { error: `must be one of ${values.join(", ")}` }),
    } as unknown as Built<V[number], O>;
  },

  int<const O extends Common & { default?: number; required?: boolean }>(
    description: string,
    options: O & { min?: number; max?: number } = {} as O,
  ): Built<number, O> {
    const { min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER, ...rest } = options;
    const message = `must be an integer from ${min} to ${max}`;
    return {
      kind: "string",
      description,
      placeholder: "<n>",
      ...rest,
      schema: z.string().trim().regex(/^[-+]?\d{1,16}$/, message).transform(Number)
        .pipe(z.number().int().min(min, message).max(max, message)),
    } as unknown as Built<number, O>;
  },

  /** A duration such as 30s, 10m, 2h, 7d or a number of milliseconds; parsed to ms. */
  duration<const O extends Common & { default?: number; required?: boolean }>(
    description: string,
    options: O & { min?: number; max?: number } = {} as O,
  ): Built<number, O> {
    const { min = 0, max = 366 * 86_400_000, ...rest } = options;
    const range = `must be between ${formatDuration(min)} and ${formatDuration(max)}`;
    return {
      kind: "string",
      description,
      placeholder: "<duration>",
      ...rest,
      schema: z.string().transform((raw, context) => {
        const ms = parseDuration(raw);
        if (ms === undefined) {
          context.addIssue({
            code: "custom",
            message: "must be a duration like 500ms, 30s, 10m, 2h or 7d",
          });
          return z.NEVER;
        }
        return ms;
      }).pipe(z.number().min(min, range).max(max, range)),
    } as unknown as Built<number, O>;
  },

  /** A repeatable flag: every occurrence is collected, in order. */
  list(description: string, options: Common & { max?: number } = {}): FlagDef<string, "list"> {
    const { max = 4096, ...rest } = options;
    return {
      kind: "list",
      description,
      placeholder: "<text>",
      ...rest,
      schema: text(1, max, false) as unknown as z.ZodType<string>,
    };
  },
};
