/**
 * Runs hostile cases: through the real entry point with the binary's
 * permissions (tables), or in-process (generated mutations, property runs).
 * Either way a run is judged the same: the exit code is one of 0-3, no stack
 * trace or uncaught-error text, exactly one JSON envelope on stdout, and for a
 * refused call (or one marked unchanged) the project, home and outside
 * folders are exactly as before.
 */
import { baseEnv, peaksArgs } from "../support/cli.ts";
import { runInProcess } from "../support/ctx.ts";
import { diffSnapshots, envFor, type Fixture, snapshot } from "./fixture.ts";
import type { HostileCase } from "./model.ts";

export const CRASH_TEXT = /Uncaught|^\s+at |panicked at|RUST_BACKTRACE|INTERNAL_ERROR/m;

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

let readOnlyMode: Promise<"unshare" | "chmod" | "none"> | undefined;

/** How this machine can make a folder read-only for a child: a private mount, file modes, or not at all. */
export function readOnlySupport(): Promise<"unshare" | "chmod" | "none"> {
  readOnlyMode ??= (async () => {
    if (Deno.build.os !== "linux") return "none";
    if (Deno.uid() !== 0) return "chmod";
    try {
      const probe = await new Deno.Command("unshare", {
        // The read-only cases run `mount` inside the namespace: without it they are skipped.
        args: [
          "-m",
          "sh",
          "-c",
          "command -v mount >/dev/null || exit 1; mount --bind / /mnt 2>/dev/null; true",
        ],
        stdout: "null",
        stderr: "null",
      }).output();
      return probe.success ? "unshare" : "none";
    } catch {
      return "none";
    }
  })();
  return readOnlyMode;
}

async function chmodTree(path: string, writable: boolean): Promise<void> {
  const info = await Deno.lstat(path);
  if (info.isSymlink) return;
  if (info.isDirectory) {
    for await (const entry of Deno.readDir(path)) {
      await chmodTree(`${path}/${entry.name}`, writable);
    }
    await Deno.chmod(path, writable ? 0o755 : 0o555);
  } else await Deno.chmod(path, writable ? 0o644 : 0o444);
}

/** Spawns the real entry point for one case (read-only cases in a private read-only mount). */
export async function runReal(c: HostileCase, fx: Fixture, argv: string[]): Promise<Outcome> {
  const env = {
    ...(await baseEnv({ cwd: fx.root, home: fx.home })),
    ...envFor(fx),
    ...(c.env ?? {}),
  };
  let program = Deno.execPath();
  let args = peaksArgs(argv);
  const mode = c.readOnly ? await readOnlySupport() : undefined;
  if (mode === "unshare") {
    const script =
      'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && shift && exec "$@"';
    args = ["-m", "sh", "-c", script, "sh", fx.root, program, ...args];
    program = "unshare";
  }
  if (mode === "chmod") await chmodTree(fx.root, false);
  try {
    const child = new Deno.Command(program, {
      args,
      cwd: fx.root,
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    if (c.stdin) await writer.write(new TextEncoder().encode(c.stdin)).catch(() => {});
    await writer.close().catch(() => {});
    const out = await child.output();
    return decode(out.code, out.stdout, out.stderr);
  } finally {
    if (mode === "chmod") await chmodTree(fx.root, true);
  }
}

function decode(code: number, out: Uint8Array, err: Uint8Array): Outcome {
  const stdout = new TextDecoder().decode(out);
  let json = undefined;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr: new TextDecoder().decode(err), json };
}

/** Runs argv through the kernel in this process (fast; used for generated and random cases). */
export async function runLocal(fx: Fixture, argv: string[], stdin?: string): Promise<Outcome> {
  return await runInProcess(argv, {
    cwd: fx.root,
    env: { HOME: fx.home, ...envFor(fx) },
    stdin,
  });
}

export interface Expectation {
  exit: number | number[];
  code?: string | string[];
  unchanged?: boolean;
}

/** Everything wrong with one outcome, as readable lines (empty when the case passed). */
export function judge(outcome: Outcome, expected: Expectation, changes: string[]): string[] {
  const problems: string[] = [];
  const exits = [expected.exit].flat();
  if (!exits.includes(outcome.code)) problems.push(`exit ${outcome.code}, expected ${exits}`);
  if (![0, 1, 2, 3].includes(outcome.code)) problems.push(`exit ${outcome.code} is outside 0-3`);
  if (CRASH_TEXT.test(outcome.stdout) || CRASH_TEXT.test(outcome.stderr)) {
    problems.push(`crash text: ${(outcome.stderr || outcome.stdout).slice(0, 400)}`);
  }
  // One line, or one indented document with --pretty.
  const lines = outcome.stdout.split("\n").filter((l) => l !== "");
  const pretty = outcome.stdout.startsWith("{\n");
  if (outcome.json === undefined || (lines.length !== 1 && !pretty)) {
    problems.push(`stdout is not one JSON envelope: ${outcome.stdout.slice(0, 200)}`);
  }
  const codes = expected.code === undefined ? [] : [expected.code].flat();
  if (outcome.code !== 0 && codes.length && !codes.includes(outcome.json?.code)) {
    problems.push(`code ${outcome.json?.code}, expected ${codes}`);
  }
  if ((outcome.code !== 0 || expected.unchanged) && changes.length) {
    problems.push(`changed the disk: ${changes.slice(0, 5).join(", ")}`);
  }
  return problems;
}

/** Snapshot, run, snapshot again, judge. */
export async function runJudged(
  fx: Fixture,
  expected: Expectation,
  run: () => Promise<Outcome>,
  options: { hash?: boolean } = {},
): Promise<{ outcome: Outcome; problems: string[] }> {
  const dirs = [fx.root, fx.home, fx.outside];
  const before = await snapshot(dirs, options);
  const outcome = await run();
  const after = await snapshot(dirs, options);
  return { outcome, problems: judge(outcome, expected, diffSnapshots(before, after)) };
}
