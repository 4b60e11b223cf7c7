/**
 * Runs Pester test files (tests/pwsh/*.Tests.ps1) under a real pwsh, with what they need laid
 * out: release archives built by release/package.ts around a stand-in peaks (or a given compiled
 * binary), a releases mirror in a folder and behind a loopback HTTP server that also serves
 * install.ps1, the completion script `peaks completions powershell` prints and the status line
 * command peaks writes into Claude Code's settings. The tests read all of it from a JSON file
 * named by PEAKS_PESTER_FIXTURE. Nothing uses the real home folder or the network.
 */
import { join } from "../../lib/infra/std.ts";
import { STATUSLINE_COMMAND } from "../../lib/settings/statusline_entry.ts";
import {
  archiveName,
  binaryName,
  hostTarget,
  isWindows,
  type Target,
} from "../../release/targets.ts";
import { buildRelease, INSTALL_PS1, type Release, standInScript } from "../support/release.ts";
import { REPO, runPeaks } from "../support/cli.ts";
import type { PwshTools } from "../support/pwsh.ts";

export const PWSH_TESTS = join(REPO, "tests", "pwsh");

export interface HarnessOptions {
  tools: PwshTools;
  /** Pester files to run (paths); all of tests/pwsh/*.Tests.ps1 when omitted. */
  files?: string[];
  /** A compiled peaks to put in the first release instead of the stand-in. */
  binary?: string;
  /** The version that binary reports (default: 2.0.0 for the stand-in). */
  version?: string;
  /** The PowerShell that runs install.ps1 (default: the pwsh running Pester). */
  installerShell?: string;
  /** Where the Pester output goes, line by line. */
  onOutput?: (text: string) => void;
}

export interface PesterTest {
  name: string;
  file: string;
  result: string;
  error: string;
}

export interface PesterResult {
  passed: number;
  failed: number;
  skipped: number;
  tests: PesterTest[];
  /** Blocks or files that failed before their tests ran (BeforeAll, a parse error). */
  failedContainers: string[];
  output: string;
}

export async function pesterFiles(): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(PWSH_TESTS)) {
    if (entry.isFile && entry.name.endsWith(".Tests.ps1")) files.push(join(PWSH_TESTS, entry.name));
  }
  return files.sort();
}

/** A stand-in peaks for the target that answers `--version` with this version. */
async function standIn(dir: string, version: string, target: Target): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  if (!isWindows(target)) {
    const path = join(dir, `peaks-${version}`);
    await Deno.writeTextFile(path, standInScript(version));
    await Deno.chmod(path, 0o755);
    return path;
  }
  // Windows runs only real executables: a tiny compiled Deno program.
  const source = join(dir, `stand-in-${version}.ts`);
  await Deno.writeTextFile(
    source,
    `if (Deno.args[0] === "--version") console.log(${JSON.stringify(`peaks ${version}`)});\n` +
      `else console.log("stand-in peaks: " + Deno.args.join(" "));\n`,
  );
  const output = join(dir, `peaks-${version}.exe`);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["compile", "-q", "--no-config", "--output", output, source],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`deno compile: ${new TextDecoder().decode(out.stderr)}`);
  return output;
}

async function release(
  dir: string,
  version: string,
  target: Target,
  binary: string,
  skills: Record<string, string>,
): Promise<Release> {
  return await buildRelease(dir, { version, target, skills, binaryPath: binary });
}

/** A releases tree: <base>/download/v<version>/<file> and <base>/latest/download/<file>. */
async function mirror(
  base: string,
  releases: [string, Release][],
  latest: Release,
): Promise<void> {
  for (const [version, r] of releases) {
    const into = join(base, "download", `v${version}`);
    await Deno.mkdir(into, { recursive: true });
    await Deno.copyFile(r.archive, join(into, r.name));
    await Deno.copyFile(r.sums, join(into, "SHA256SUMS"));
  }
  const into = join(base, "latest", "download");
  await Deno.mkdir(into, { recursive: true });
  await Deno.copyFile(latest.archive, join(into, latest.name));
  await Deno.copyFile(latest.sums, join(into, "SHA256SUMS"));
}

async function completionScript(options: HarnessOptions, work: string): Promise<string> {
  if (options.binary) {
    const out = await new Deno.Command(options.binary, {
      args: ["completions", "powershell"],
      cwd: work,
      stdout: "piped",
    }).output();
    if (!out.success) throw new Error(`${options.binary} completions powershell failed`);
    return new TextDecoder().decode(out.stdout);
  }
  const result = await runPeaks(["completions", "powershell"], { cwd: work });
  if (result.code !== 0) throw new Error(`peaks completions powershell: ${result.stderr}`);
  return result.stdout;
}

/** The environment pwsh runs Pester in: explicit, with a scratch home. */
function pesterEnv(work: string, fixture: string): Record<string, string> {
  const home = join(work, "home");
  const env: Record<string, string> = {
    HOME: home,
    USERPROFILE: home,
    PATH: Deno.env.get("PATH") ?? "",
    TMPDIR: join(work, "tmp"),
    TMP: join(work, "tmp"),
    TEMP: join(work, "tmp"),
    NO_COLOR: "1",
    POWERSHELL_TELEMETRY_OPTOUT: "1",
    POWERSHELL_UPDATECHECK: "Off",
    DOTNET_CLI_TELEMETRY_OPTOUT: "1",
    DOTNET_NOLOGO: "1",
    PEAKS_PESTER_FIXTURE: fixture,
  };
  for (const name of ["DOTNET_ROOT", "SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  if (Deno.build.os === "windows") {
    env.APPDATA = join(home, "AppData", "Roaming");
    env.LOCALAPPDATA = join(home, "AppData", "Local");
  }
  return env;
}

export async function runPester(options: HarnessOptions): Promise<PesterResult> {
  const target = hostTarget();
  if (!target) throw new Error(`peaks has no release for ${Deno.build.target}`);
  const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "peaks-pwsh-" }));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const path = decodeURIComponent(new URL(request.url).pathname);
      if (path.includes("..")) return new Response("bad path", { status: 400 });
      const file = path === "/install.ps1"
        ? INSTALL_PS1
        : join(work, "mirror", ...path.replace(/^\/releases\//, "").split("/"));
      const data = await Deno.readFile(file).catch(() => undefined);
      return data ? new Response(data) : new Response("not found", { status: 404 });
    },
  );
  try {
    for (const dir of ["home", "tmp"]) await Deno.mkdir(join(work, dir), { recursive: true });
    const version = options.version ?? "2.0.0";
    const nextVersion = version === "2.0.1" ? "2.0.2" : "2.0.1";
    const first = options.binary ?? await standIn(join(work, "stand-in"), version, target);
    const next = await standIn(join(work, "stand-in"), nextVersion, target);
    const v1 = await release(join(work, "v1"), version, target, first, {
      "peaks-fixture/SKILL.md": "fixture\n",
      "peaks-old/SKILL.md": "old\n",
    });
    const v2 = await release(join(work, "v2"), nextVersion, target, next, {
      "peaks-fixture/SKILL.md": "two\n",
    });
    await mirror(join(work, "mirror"), [[version, v1], [nextVersion, v2]], v1);
    const completions = join(work, "peaks-completions.ps1");
    await Deno.writeTextFile(completions, await completionScript(options, work));
    const fixture = join(work, "fixture.json");
    const port = (server.addr as Deno.NetAddr).port;
    await Deno.writeTextFile(
      fixture,
      JSON.stringify(
        {
          repo: REPO,
          installer: INSTALL_PS1,
          installerShell: options.installerShell ?? options.tools.pwsh,
          pwsh: options.tools.pwsh,
          target,
          binaryName: binaryName(target),
          archiveSuffix: isWindows(target) ? ".zip" : ".tar.gz",
          otherArchive: archiveName("2.0.0", otherTarget(target)),
          v1: { version, archive: v1.archive, sums: v1.sums, name: v1.name, dir: v1.dir },
          v2: {
            version: nextVersion,
            archive: v2.archive,
            sums: v2.sums,
            name: v2.name,
            dir: v2.dir,
          },
          mirror: join(work, "mirror"),
          baseUrl: `http://127.0.0.1:${port}/releases`,
          installerUrl: `http://127.0.0.1:${port}/install.ps1`,
          completions,
          statusLineCommand: STATUSLINE_COMMAND,
          windows: Deno.build.os === "windows",
        },
        null,
        2,
      ),
    );
    const resultFile = join(work, "result.json");
    const files = options.files ?? await pesterFiles();
    const child = new Deno.Command(options.tools.pwsh, {
      args: [
        "-NoProfile",
        "-NonInteractive",
        "-File",
        join(PWSH_TESTS, "run_pester.ps1"),
        options.tools.pester,
        resultFile,
        ...files,
      ],
      cwd: work,
      env: pesterEnv(work, fixture),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let output = "";
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      for await (const text of stream.pipeThrough(new TextDecoderStream())) {
        output += text;
        options.onOutput?.(text);
      }
    };
    const [status] = await Promise.all([child.status, pump(child.stdout), pump(child.stderr)]);
    const raw = await Deno.readTextFile(resultFile).catch(() => undefined);
    if (raw === undefined) {
      throw new Error(`Pester wrote no result (pwsh exited ${status.code}):\n${output}`);
    }
    const parsed = JSON.parse(raw);
    const tests = ([] as PesterTest[]).concat(parsed.tests ?? []);
    const failedContainers = ([] as string[]).concat(parsed.failedContainers ?? []);
    return {
      passed: parsed.passed,
      failed: parsed.failed + failedContainers.length,
      skipped: parsed.skipped,
      tests,
      failedContainers,
      output,
    };
  } finally {
    await server.shutdown();
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

function otherTarget(target: Target): Target {
  return target.startsWith("x86_64") ? "aarch64-unknown-linux-gnu" : "x86_64-unknown-linux-gnu";
}
