/**
 * The flag builders: each flag carries the check of its raw value (text
 * bounds, closed sets, integer and duration ranges), answering like a
 * schema's safeParse with the message the usage error quotes. Plain
 * functions, not zod: every command parses its flags, and loading zod would
 * double the cost of a heartbeat.
 */
import {
  type FlagCheck,
  type FlagCheckResult,
  type FlagDef,
  formatDuration,
  parseDuration,
} from "./spec.ts";

interface Common {
  placeholder?: string;
  hidden?: boolean;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const ok = <T>(data: T): FlagCheckResult<T> => ({ success: true, data });
const no = <T>(message: string): FlagCheckResult<T> => ({
  success: false,
  error: { issues: [{ message }] },
});

function check<T>(test: (raw: unknown) => FlagCheckResult<T>): FlagCheck<T> {
  return { safeParse: test };
}

function text(min: number, max: number, allowControl: boolean): FlagCheck<string> {
  return check((raw) => {
    if (typeof raw !== "string") return no("must be text");
    if (raw.length < min) {
      return no(min <= 1 ? "needs a value" : `needs at least ${min} characters`);
    }
    if (raw.length > max) return no(`is longer than ${max} characters`);
    if (!allowControl && CONTROL.test(raw)) return no("must not contain control characters");
    return ok(raw);
  });
}

function inRange(value: number, min: number, max: number, message: string) {
  return value >= min && value <= max ? ok(value) : no<number>(message);
}

type Built<T, O> = FlagDef<T, "string"> & Pick<O, Extract<keyof O, "default" | "required">>;

export const flag = {
  boolean(description: string, options: Common = {}): FlagDef<boolean, "boolean"> {
    const schema = check<boolean>((raw) =>
      typeof raw === "boolean" ? ok(raw) : no("takes no value")
    );
    return { kind: "boolean", description, default: false, ...options, schema };
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
      schema: check((raw) =>
        (values as readonly unknown[]).includes(raw)
          ? ok(raw as V[number])
          : no(`must be one of ${values.join(", ")}`)
      ),
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
      schema: check((raw) => {
        const trimmed = typeof raw === "string" ? raw.trim() : "";
        if (!/^[-+]?\d{1,16}$/.test(trimmed)) return no(message);
        return inRange(Number(trimmed), min, max, message);
      }),
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
      schema: check((raw) => {
        const ms = typeof raw === "string" ? parseDuration(raw) : undefined;
        if (ms === undefined) return no("must be a duration like 500ms, 30s, 10m, 2h or 7d");
        return inRange(ms, min, max, range);
      }),
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
      schema: text(1, max, false),
    };
  },
};
