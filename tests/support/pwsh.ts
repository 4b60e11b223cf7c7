/**
 * The pinned PowerShell and Pester the PowerShell tests run with, kept in a cache outside the
 * repository: `${PEAKS_PWSH_CACHE:-~/.cache/peaks-pwsh}`. PowerShell comes from NuGet as the
 * `PowerShell` .NET tool (`dotnet tool install --tool-path`, so nothing is installed globally),
 * Pester as the `Pester` NuGet package (a restore of a project that only downloads it). Both need
 * the .NET SDK; `installPwshTools` says so when `dotnet` is missing.
 *
 * `PEAKS_PWSH=<pwsh>` (and `PEAKS_PESTER=<Pester.psd1>`) use other copies instead.
 */
import { join } from "../../lib/infra/std.ts";
import { findTool } from "./tools.ts";

export const PWSH_VERSION = "7.6.10";
export const PESTER_VERSION = "5.7.1";

const windows = Deno.build.os === "windows";

export function pwshCache(): string {
  const fromEnv = Deno.env.get("PEAKS_PWSH_CACHE");
  if (fromEnv) return fromEnv;
  const home = Deno.env.get(windows ? "USERPROFILE" : "HOME") ?? Deno.env.get("HOME");
  if (!home) throw new Error("set PEAKS_PWSH_CACHE or HOME: the PowerShell tools need a cache");
  return join(home, ".cache", "peaks-pwsh");
}

function cachedPwsh(): string {
  return join(pwshCache(), `pwsh-${PWSH_VERSION}`, windows ? "pwsh.exe" : "pwsh");
}

function cachedPester(): string {
  return join(
    pwshCache(),
    `pester-${PESTER_VERSION}`,
    "pester",
    PESTER_VERSION,
    "tools",
    "Pester.psd1",
  );
}

async function isFile(path: string): Promise<boolean> {
  return (await Deno.stat(path).catch(() => undefined))?.isFile ?? false;
}

export interface PwshTools {
  pwsh: string;
  pester: string;
}

/** The pwsh and Pester to test with, or what is missing. Installs nothing. */
export async function findPwshTools(): Promise<PwshTools | { missing: string }> {
  const pwsh = Deno.env.get("PEAKS_PWSH") ?? cachedPwsh();
  if (!(await isFile(pwsh))) return { missing: "pwsh" };
  const pester = Deno.env.get("PEAKS_PESTER") ?? cachedPester();
  if (!(await isFile(pester))) return { missing: "Pester" };
  return { pwsh, pester };
}

async function run(command: string, args: string[], cwd?: string): Promise<void> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    throw new Error(`${command} ${args.join(" ")} failed (exit ${out.code}):\n${text.trim()}`);
  }
}

/** Installs the pinned pwsh and Pester into the cache when they are not there yet. */
export async function installPwshTools(log: (line: string) => void): Promise<PwshTools> {
  const found = await findPwshTools();
  if ("pwsh" in found) return found;
  const dotnet = await findTool("dotnet");
  if (!dotnet) {
    throw new Error(
      "the PowerShell tests need pwsh, which they install with the .NET SDK, and `dotnet` is " +
        "not on PATH. Install the .NET SDK (8.0 or newer), or point PEAKS_PWSH at a pwsh and " +
        "PEAKS_PESTER at a Pester 5 Pester.psd1.",
    );
  }
  const cache = pwshCache();
  await Deno.mkdir(cache, { recursive: true });
  if (!(await isFile(cachedPwsh())) && !Deno.env.get("PEAKS_PWSH")) {
    log(`installing PowerShell ${PWSH_VERSION} (dotnet tool) into ${cache}`);
    await run(dotnet, [
      "tool",
      "install",
      "PowerShell",
      "--version",
      PWSH_VERSION,
      "--tool-path",
      join(cache, `pwsh-${PWSH_VERSION}`),
    ]);
  }
  if (!(await isFile(cachedPester())) && !Deno.env.get("PEAKS_PESTER")) {
    log(`installing Pester ${PESTER_VERSION} (NuGet) into ${cache}`);
    const project = await Deno.makeTempDir({ dir: cache, prefix: "pester-restore-" });
    try {
      await Deno.writeTextFile(
        join(project, "pester.csproj"),
        `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>netstandard2.0</TargetFramework></PropertyGroup>
  <ItemGroup><PackageDownload Include="Pester" Version="[${PESTER_VERSION}]" /></ItemGroup>
</Project>
`,
      );
      await run(dotnet, [
        "restore",
        join(project, "pester.csproj"),
        "--packages",
        join(cache, `pester-${PESTER_VERSION}`),
      ], project);
    } finally {
      await Deno.remove(project, { recursive: true }).catch(() => {});
    }
  }
  const installed = await findPwshTools();
  if (!("pwsh" in installed)) throw new Error(`${installed.missing} is still missing in ${cache}`);
  return installed;
}
