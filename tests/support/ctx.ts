/** An in-process Ctx for unit tests: fixed cwd, env and clock; captured output. */
import type { Ctx } from "../../lib/infra/command/ctx.ts";
import { main } from "../../lib/cli/main.ts";

export interface FakeCtx extends Ctx {
  out: string[];
  err: string[];
}

export function fakeCtx(options: {
  cwd: string;
  env?: Record<string, string>;
  now?: () => Date;
  stdin?: string;
}): FakeCtx {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    cwd: options.cwd,
    env: { get: (name) => options.env?.[name] },
    now: options.now ?? (() => new Date()),
    stdout: { isTerminal: false, write: (t) => Promise.resolve(void out.push(t)) },
    stderr: { isTerminal: false, write: (t) => Promise.resolve(void err.push(t)) },
    stdin: {
      isTerminal: options.stdin === undefined,
      readAll: () => Promise.resolve(options.stdin),
    },
    global: { json: false, pretty: false },
    selfCommand: () => ["peaks"],
  };
}

export interface RunOutcome {
  code: number;
  stdout: string;
  stderr: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

/** Runs argv through the kernel in-process; returns exit code, output and envelope. */
export async function runInProcess(
  args: string[],
  options: Parameters<typeof fakeCtx>[0],
): Promise<RunOutcome> {
  const ctx = fakeCtx(options);
  const code = await main(args, ctx);
  const stdout = ctx.out.join("");
  let // deno-lint-ignore no-explicit-any
  json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr: ctx.err.join(""), json };
}
