/**
 * How a command declares itself. One declaration feeds the parser, the value
 * checks, `--help`, shell completions and the skills' contract tests.
 */
import { z } from "zod";
import type { Ctx } from "../core/ctx.ts";
import type { Warning } from "../core/errors.ts";

// Each call parses a handful of values once: compiling a fast path per schema costs more than it saves.
z.config({ jitless: true });

export type FlagKind = "string" | "boolean" | "list";

export interface FlagDef<T = unknown, K extends FlagKind = FlagKind> {
  kind: K;
  description: string;
  /** Shown in help: `--prompt-file <path>`. */
  placeholder?: string;
  /** Value used when the flag is absent (also shown in help). */
  default?: T;
  /** The closed set of values, for help, completions and error messages. */
  values?: readonly string[];
  /** Hidden from help and completions (internal plumbing). */
  hidden?: boolean;
  required?: boolean;
  /** Checks (and converts) the raw value: a string, a boolean, or a list of strings. */
  schema: z.ZodType<T>;
}

export interface ArgDef {
  name: string;
  description: string;
  required?: boolean;
  /** Takes every remaining word. */
  variadic?: boolean;
  values?: readonly string[];
}

// deno-lint-ignore no-explicit-any
export type FlagDefs = Record<string, FlagDef<any, FlagKind>>;

type ValueOf<D> = D extends FlagDef<infer T, FlagKind> ? T : never;
type HasDefault<D> = D extends { default: infer V } ? (undefined extends V ? false : true) : false;
type IsRequired<D> = D extends { required: true } ? true : false;

export type FlagValues<F extends FlagDefs> = {
  [K in keyof F]: F[K] extends FlagDef<boolean, "boolean"> ? boolean
    : F[K] extends FlagDef<infer T, "list"> ? T[]
    : HasDefault<F[K]> extends true ? ValueOf<F[K]>
    : IsRequired<F[K]> extends true ? ValueOf<F[K]>
    : ValueOf<F[K]> | undefined;
};

export interface Input<F extends FlagDefs> {
  flags: FlagValues<F>;
  /** Positional arguments by name; variadic ones joined into `rest`. */
  args: Record<string, string | undefined>;
  rest: string[];
  /** Names of the flags the caller actually typed (defaults excluded). */
  given: ReadonlySet<string>;
}

export interface CommandResult<D = Record<string, unknown>> {
  data: D;
  warnings?: Warning[];
  nextActions?: string[];
  /** Text printed without `--json`; defaults to a short rendering of `data`. */
  human?: string;
  /** Non-zero exit with a success envelope (e.g. `watch` when a member failed). */
  exitCode?: 0 | 1 | 2 | 3;
  /** The command already wrote its own output (streaming commands, raw renders). */
  raw?: boolean;
}

export interface CommandSpec<F extends FlagDefs = FlagDefs> {
  /** Space-separated words, as typed: "sub-agent dispatch". */
  name: string;
  description?: string;
  args?: ArgDef[];
  flags: F;
  examples: string[];
  /** Exit codes worth spelling out beyond 0/1/2/3 basics. */
  exitNotes?: string[];
  run(input: Input<F>, ctx: Ctx): Promise<CommandResult<unknown>>;
}

/** Any command, whatever its flags (the table and the kernel hold them this way). */
// deno-lint-ignore no-explicit-any
export type AnyCommand = CommandSpec<any>;

export function defineCommand<F extends FlagDefs>(spec: CommandSpec<F>): CommandSpec<F> {
  return spec;
}

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

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(raw: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNITS[match[2] ?? "ms"]);
}

export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"]) {
    if (ms >= UNITS[unit] && ms % UNITS[unit] === 0) return `${ms / UNITS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
