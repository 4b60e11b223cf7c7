/**
 * Smoke test of a built (and installed) peaks binary, run by the release
 * workflow on each operating system:
 *
 *   deno run -A release/smoke.ts --binary <peaks[.exe]> [--skills <dir>] [--version <v>]
 *
 * Checks --version, `workspace init`, a dispatch -> heartbeat -> finalize round
 * trip and `skills install --scope project` in a fresh temp project, with an
 * explicit environment and a temp HOME. `--binary` may also be the `peaks` that
 * `deno task install:peaks` writes (a script running the clone).
 */
import { join, parseArgs, resolve } from "../lib/infra/std.ts";
import { ReleaseError, runMain } from "./errors.ts";
import { projectVersion } from "./package.ts";

interface Step {
  code: number;
  stdout: string;
  stderr: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

async function run(binary: string, args: string[], cwd: string, home: string): Promise<Step> {
  const env: Record<string, string> = {
    HOME: home,
    USERPROFILE: home,
    PATH: Deno.env.get("PATH") ?? "",
    NO_COLOR: "1",
  };
  // DENO_DIR: a peaks put on PATH by `deno task install:peaks` finds its modules in Deno's cache
  // (a compiled binary ignores it); the others are what Windows processes need to start.
  for (const name of ["DENO_DIR", "SystemRoot", "TEMP", "TMP"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  const out = await new Deno.Command(binary, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  let json = undefined;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code: out.code, stdout, stderr, json };
}

function expectOk(step: Step, what: string): void {
  if (step.code !== 0 || step.json?.ok !== true) {
    throw new ReleaseError(
      `${what} failed (exit ${step.code})\nstdout: ${step.stdout.trim()}\nstderr: ${step.stderr.trim()}`,
    );
  }
  console.log(`ok  ${what}`);
}

async function skillNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (entry.isDirectory) names.push(entry.name);
  return names.sort();
}

async function smoke(binary: string, version: string, skills: string | undefined): Promise<void> {
  const temp = await Deno.makeTempDir({ prefix: "peaks-smoke-" });
  try {
    const project = join(temp, "project");
    const home = join(temp, "home");
    await Deno.mkdir(project);
    await Deno.mkdir(home);

    const shown = await run(binary, ["--version"], project, home);
    if (shown.code !== 0 || shown.stdout.trim() !== `peaks ${version}`) {
      throw new ReleaseError(`--version printed "${shown.stdout.trim()}", not "peaks ${version}"`);
    }
    console.log(`ok  --version (${shown.stdout.trim()})`);

    expectOk(
      await run(binary, ["workspace", "init", "--project", project, "--json"], project, home),
      "workspace init",
    );

    const dispatch = await run(
      binary,
      [
        "sub-agent",
        "dispatch",
        "rd",
        "--project",
        project,
        "--request-id",
        "smoke-001",
        "--ide",
        "claude-code",
        "--prompt",
        "Smoke test: reply with the completion JSON.",
        "--json",
      ],
      project,
      home,
    );
    expectOk(dispatch, "sub-agent dispatch");
    // The record's short id, which every --record takes.
    const record = dispatch.json.data?.record;
    if (typeof record !== "string") {
      throw new ReleaseError("dispatch returned no record");
    }

    expectOk(
      await run(
        binary,
        [
          "sub-agent",
          "heartbeat",
          "--project",
          project,
          "--record",
          record,
          "--status",
          "running",
          "--progress",
          "50",
          "--json",
        ],
        project,
        home,
      ),
      "sub-agent heartbeat",
    );

    const finalize = await run(
      binary,
      [
        "sub-agent",
        "finalize",
        "--project",
        project,
        "--record",
        record,
        "--outcome",
        "done",
        "--json",
      ],
      project,
      home,
    );
    expectOk(finalize, "sub-agent finalize");
    if (
      !Array.isArray(finalize.json.data?.finalized) || finalize.json.data.finalized.length !== 1
    ) {
      throw new ReleaseError(`finalize did not finalize the record: ${finalize.stdout.trim()}`);
    }

    expectOk(
      await run(
        binary,
        [
          "skills",
          "install",
          "--scope",
          "project",
          "--agent",
          "claude-code",
          "--project",
          project,
          "--json",
        ],
        project,
        home,
      ),
      "skills install --scope project",
    );
    if (skills) {
      const shipped = await skillNames(skills);
      const installed: string[] = await skillNames(join(project, ".claude", "skills")).catch(
        () => [],
      );
      const missing = shipped.filter((name) => !installed.includes(name));
      if (missing.length) {
        throw new ReleaseError(`skills install left out: ${missing.join(", ")}`);
      }
      console.log(`ok  ${shipped.length} skills installed into .claude/skills`);
    }
  } finally {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
  }
}

const USAGE =
  "Usage: deno run -A release/smoke.ts --binary <peaks> [--skills <dir>] [--version <v>]";

async function main(args: string[]): Promise<void> {
  const flags = parseArgs(args, {
    string: ["binary", "skills", "version"],
    boolean: ["help"],
    unknown: (arg) => {
      throw new ReleaseError(`unknown option ${arg}\n${USAGE}`, 2);
    },
  });
  if (flags.help) return void console.log(USAGE);
  const binary = flags.binary as string | undefined;
  if (!binary) throw new ReleaseError(`--binary is required\n${USAGE}`, 2);
  const version = (flags.version as string | undefined)?.replace(/^v/, "") ??
    await projectVersion();
  const skills = flags.skills as string | undefined;
  await smoke(resolve(binary), version, skills ? resolve(skills) : undefined);
  console.log("smoke test passed");
}

if (import.meta.main) await runMain(() => main(Deno.args));
