/**
 * Copies install.sh and install.ps1 into the release directory with the
 * project's releases address filled in, so `curl … | sh` and `irm … | iex`
 * download from where the archives are published.
 *
 *   deno run -A release/installers.ts [--releases-url <url>] [--out dist]
 *
 * Without --releases-url the address is deno.json's "repository" + "/releases".
 */
import { join, parseArgs, resolve } from "../lib/infra/std.ts";
import { ReleaseError, runMain } from "./errors.ts";
import { projectRepository, REPO_ROOT } from "./package.ts";

/** The line each installer carries for the default address, and its filled-in form. */
const PLACEHOLDERS: Record<string, [string, (url: string) => string]> = {
  "install.sh": ["default_download_base=''", (url) => `default_download_base='${url}'`],
  "install.ps1": ["$DefaultDownloadBase = ''", (url) => `$DefaultDownloadBase = '${url}'`],
};

export function stampInstaller(name: string, text: string, releasesUrl: string): string {
  if (
    !/^https?:\/\/[A-Za-z0-9._~:/?#@!$&()*+,;=%-]+$/.test(releasesUrl) || releasesUrl.includes("'")
  ) {
    throw new ReleaseError(`not a usable releases address: ${releasesUrl}`, 2);
  }
  const [line, filled] = PLACEHOLDERS[name];
  const lines = text.split("\n");
  const at = lines.flatMap((l, i) => (l.trim() === line ? [i] : []));
  if (at.length !== 1) throw new ReleaseError(`${name} must hold the line ${line} exactly once`);
  const indent = lines[at[0]].slice(0, lines[at[0]].indexOf(line));
  lines[at[0]] = indent + filled(releasesUrl.replace(/\/+$/, ""));
  return lines.join("\n");
}

export async function writeInstallers(outDir: string, releasesUrl: string): Promise<string[]> {
  await Deno.mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const name of Object.keys(PLACEHOLDERS)) {
    const text = await Deno.readTextFile(join(REPO_ROOT, name));
    const path = join(outDir, name);
    await Deno.writeTextFile(path, stampInstaller(name, text, releasesUrl));
    if (Deno.build.os !== "windows") await Deno.chmod(path, 0o755);
    written.push(path);
  }
  return written;
}

const USAGE = "Usage: deno run -A release/installers.ts [--releases-url <url>] [--out dist]";

async function main(args: string[]): Promise<void> {
  const flags = parseArgs(args, {
    string: ["releases-url", "out"],
    boolean: ["help"],
    unknown: (arg) => {
      throw new ReleaseError(`unknown option ${arg}\n${USAGE}`, 2);
    },
  });
  if (flags.help) return void console.log(USAGE);
  const url = (flags["releases-url"] as string | undefined) ??
    `${await projectRepository()}/releases`;
  const outDir = resolve((flags.out as string | undefined) ?? join(REPO_ROOT, "dist"));
  for (const path of await writeInstallers(outDir, url)) console.log(`wrote ${path}`);
}

if (import.meta.main) await runMain(() => main(Deno.args));
