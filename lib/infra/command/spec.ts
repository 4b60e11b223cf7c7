/**
 * How a command declares itself. One declaration feeds the parser, the value
 * checks, `--help`, shell completions and the skills' contract tests.
 */
import type { Ctx } from "./ctx.ts";
import type { Warning } from "../errors.ts";

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
  schema: FlagCheck<T>;
}

export type FlagCheckResult<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: { message: string }[] } };

/** A flag's value check, answering the way a schema's safeParse does. */
export interface FlagCheck<T> {
  safeParse(raw: unknown): FlagCheckResult<T>;
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
