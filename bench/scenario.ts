/**
 * One benchmark scenario: a project prepared once per target, then one peaks
 * command line timed many times in it. The timed command must leave the
 * project as it found it (idempotent), or alternate between two calls that
 * undo each other (`args` gets the call's index).
 */

/** Values the setup learned (a record path, a session id) for the timed command line. */
export type Vars = Record<string, string>;

/** A parsed `--json` envelope, as far as setups read it. */
export interface Envelope {
  ok: boolean;
  code?: string;
  message?: string;
  // deno-lint-ignore no-explicit-any
  data?: any;
}

export interface SetupTools {
  /** Runs the target's peaks in the project; throws when it exits non-zero. */
  peaks(args: string[], stdin?: string): Promise<Envelope>;
  /** The project folder (absolute), for files no command writes. */
  project: string;
}

export interface Scenario {
  /** Short id for `--only`. */
  name: string;
  /** The command-table entry it times ("sub-agent dispatch"); "" for a global flag. */
  command: string;
  /** The command line as the report shows it. */
  shown: string;
  /** "sample": a copy of demo/sample-project; default: a git repository with one commit. */
  project?: "empty" | "sample";
  setup?: (tools: SetupTools) => Promise<Vars | void>;
  /** The timed command line; `run` counts every call in the project, warm-up included. */
  args: string[] | ((vars: Vars, run: number) => string[]);
  /** Text on stdin, or made from the setup's values. */
  stdin?: string | ((vars: Vars) => string);
}

export function argsFor(scenario: Scenario, vars: Vars, run: number): string[] {
  return typeof scenario.args === "function" ? scenario.args(vars, run) : scenario.args;
}
