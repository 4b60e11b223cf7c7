/**
 * What the bench runs against: this checkout's peaks (with the binary's
 * permissions) and, with `--compare`, another CLI given as an argv prefix.
 * Every child gets the same small environment and a fresh project.
 */
import { join } from "../lib/infra/std.ts";
import { splitCommandLine } from "../lib/infra/shell.ts";
import { cacheDir, peaksArgs, REPO } from "../tests/support/cli.ts";
import { copySampleProject } from "../demo/sample.ts";
import type { Envelope } from "./scenario.ts";

export interface Target {
  /** Column heading in the report. */
  label: string;
  /** argv prefix that runs this CLI. */
  prefix: string[];
}

export function checkoutTarget(): Target {
  return { label: "peaks", prefix: [Deno.execPath(), ...peaksArgs([])] };
}

export function compareTarget(line: string, label?: string): Target {
  const prefix = splitCommandLine(line.trim());
  if (prefix.length === 0) throw new Error("--compare needs a command, e.g. --compare peaks");
  return { label: label ?? "compared", prefix };
}

/** The command line as a reader can reuse it: this checkout as <repo>, deno by name. */
export function shownPrefix(prefix: string[]): string {
  return prefix.map((word) =>
    word === Deno.execPath() ? "deno" : word.replaceAll(REPO.replace(/\/$/, ""), "<repo>")
  ).map((word) => (/^[\w@%+=:,./<>-]+$/.test(word) ? word : `'${word}'`)).join(" ");
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(join(from, entry.name), join(to, entry.name));
    else if (entry.isFile) await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

/**
 * A Deno cache of the bench's own: the npm packages copied from the usual
 * cache (so nothing is downloaded), and code caches that only this run's
 * warm-ups fill. A cache grown by months of other work (a code-cache
 * database of tens of MB) otherwise weighs on every call's memory.
 */
async function benchDenoDir(home: string): Promise<string> {
  const dir = join(home, ".deno-cache");
  await copyTree(join(await cacheDir(), "npm"), join(dir, "npm"));
  return dir;
}

/**
 * Children see only these variables: a throw-away HOME, PATH, the bench's own Deno cache, Claude
 * Code.
 */
export async function benchEnv(home: string): Promise<Record<string, string>> {
  return {
    HOME: home,
    PATH: Deno.env.get("PATH") ?? "",
    DENO_DIR: await benchDenoDir(home),
    NO_COLOR: "1",
    CLAUDECODE: "1",
  };
}

export interface Output {
  code: number;
  stdout: Uint8Array;
  stderr: string;
}

/** A compared CLI that hangs is stopped and counted as failed, so the run still ends. */
const CALL_TIMEOUT_MS = 60_000;

export async function runCommand(
  command: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string; timeoutMs?: number },
): Promise<Output> {
  const timeoutMs = options.timeoutMs ?? CALL_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const child = new Deno.Command(command[0], {
      args: command.slice(1),
      cwd: options.cwd,
      env: options.env,
      clearEnv: true,
      signal,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    if (options.stdin) await writer.write(new TextEncoder().encode(options.stdin)).catch(() => {});
    await writer.close().catch(() => {});
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    if (signal.aborted) {
      return {
        code: out.code || 124,
        stdout: out.stdout,
        stderr: `timed out after ${timeoutMs} ms\n${stderr}`,
      };
    }
    return { code: out.code, stdout: out.stdout, stderr };
  } catch (error) {
    // A program that cannot start is a failed run, not a crashed bench.
    return { code: 127, stdout: new Uint8Array(), stderr: String(error) };
  }
}

export function parseEnvelope(stdout: Uint8Array): Envelope | undefined {
  try {
    const value = JSON.parse(new TextDecoder().decode(stdout));
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** One line on why a run failed: the envelope's code and message, else stderr, else the exit code. */
export function failureReason(out: Output): string {
  const envelope = parseEnvelope(out.stdout);
  const text = envelope?.code
    ? `${envelope.code}: ${envelope.message ?? ""}`
    : out.stderr.trim().split("\n").find((line) => line.trim()) ?? `exit ${out.code}`;
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

export class SetupError extends Error {}

/** Runs `argv` with the target in `project`; the envelope, or SetupError naming the failure. */
export async function peaksIn(
  target: Target,
  project: string,
  env: Record<string, string>,
  argv: string[],
  stdin?: string,
): Promise<Envelope> {
  const out = await runCommand([...target.prefix, ...argv], { cwd: project, env, stdin });
  if (out.code !== 0) {
    throw new SetupError(`\`${argv.slice(0, 3).join(" ")}\` failed: ${failureReason(out)}`);
  }
  return parseEnvelope(out.stdout) ?? { ok: true };
}

async function git(root: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=peaks bench", "-c", "user.email=bench@peaks.invalid", ...args],
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(`git ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
}

/**
 * A fresh project: a git repository with one commit, as the projects agents
 * work in are (dispatch records the head, finalize audits commits), or a
 * copy of the demo's sample project.
 */
export async function makeProject(kind: "empty" | "sample" = "empty"): Promise<string> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "peaks-bench-" }));
  if (kind === "sample") {
    const root = join(base, "team-directory");
    await copySampleProject(root);
    return root;
  }
  await Deno.writeTextFile(join(base, "README.md"), "# bench project\n");
  await git(base, ["init", "-q", "-b", "main"]);
  await git(base, ["add", "-A"]);
  await git(base, ["commit", "-q", "-m", "start"]);
  return base;
}

/** Removes a project made by makeProject (the sample sits one folder down). */
export async function removeProject(project: string): Promise<void> {
  const base = project.endsWith("/team-directory") ? join(project, "..") : project;
  await Deno.remove(base, { recursive: true }).catch(() => {});
}
