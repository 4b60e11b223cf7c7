/**
 * Fixtures for the release tests: real archives built by release/package.ts
 * around a stand-in executable, and install.sh run with an explicit, offline
 * environment.
 */
import { join } from "../../lib/infra/std.ts";
import {
  HOOK_FILES,
  PACKAGE_TREES,
  packageTarget,
  PLUGIN_FILES,
  sha256Hex,
  writeChecksums,
} from "../../release/package.ts";
import { hostTarget, type Target } from "../../release/targets.ts";
import { REPO } from "./cli.ts";
import { writeText } from "./temp.ts";

export const HOST: Target | undefined = hostTarget();
export const INSTALL_SH = join(REPO, "install.sh");
export const INSTALL_PS1 = join(REPO, "install.ps1");
export const FIXED_TIME = new Date("2026-01-02T03:04:05Z");

/** A POSIX sh script that answers `--version` like peaks does. */
export function standInScript(version: string): string {
  return `#!/bin/sh\nif [ "$1" = --version ]; then echo "peaks ${version}"; exit 0; fi\n` +
    `echo "stand-in peaks: $*"\n`;
}

/**
 * A source tree laid out like the repository: its license files, plugin manifests and hooks, the
 * host packages (extensions/) and skills/, plus the given extra skill files. README.md is the
 * repository's when it has one.
 */
export async function fixtureRoot(dir: string, skills: Record<string, string>): Promise<string> {
  const root = join(dir, "root");
  // The fixture's own skills only, so what the tests expect does not follow the real bundle.
  await Deno.mkdir(join(root, "skills"), { recursive: true });
  await Deno.mkdir(join(root, ".claude-plugin"));
  await Deno.mkdir(join(root, "hooks"));
  for (const file of ["LICENSE", "THIRD_PARTY_LICENSES.md", ...PLUGIN_FILES, ...HOOK_FILES]) {
    await Deno.copyFile(join(REPO, file), join(root, file));
  }
  for (const tree of PACKAGE_TREES) await copyTree(join(REPO, tree), join(root, tree));
  const readme = await Deno.readTextFile(join(REPO, "README.md")).catch(() => "# peaks\n");
  await Deno.writeTextFile(join(root, "README.md"), readme);
  for (const [path, text] of Object.entries(skills)) {
    await writeText(join(root, "skills", path), text);
  }
  return root;
}

export interface Release {
  dir: string;
  archive: string;
  sums: string;
  name: string;
}

/** Packs a stand-in peaks for `target` into `<dir>/` with SHA256SUMS, like a release. */
export async function buildRelease(dir: string, options: {
  version: string;
  target: Target;
  skills?: Record<string, string>;
  binaryText?: string;
  /** An executable to pack instead of the stand-in script (a compiled peaks). */
  binaryPath?: string;
}): Promise<Release> {
  const work = await Deno.makeTempDir({ dir: await ensureDir(dir), prefix: ".work-" });
  const root = await fixtureRoot(work, options.skills ?? { "peaks-fixture/SKILL.md": "fixture\n" });
  const binary = join(work, "peaks");
  if (options.binaryPath) await Deno.copyFile(options.binaryPath, binary);
  else await Deno.writeTextFile(binary, options.binaryText ?? standInScript(options.version));
  if (Deno.build.os !== "windows") await Deno.chmod(binary, 0o755);
  const archive = await packageTarget({
    binary,
    target: options.target,
    version: options.version,
    outDir: dir,
    root,
    mtime: FIXED_TIME,
  });
  const sums = await writeChecksums(dir, options.version);
  await Deno.remove(work, { recursive: true });
  return { dir, archive: archive.path, sums, name: archive.name };
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

async function ensureDir(dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  return dir;
}

/** Rewrites SHA256SUMS so it matches whatever the archive holds now. */
export async function resign(release: Release): Promise<void> {
  const digest = await sha256Hex(await Deno.readFile(release.archive));
  await Deno.writeTextFile(release.sums, `${digest}  ${release.name}\n`);
}

/** The tools install.sh uses without downloading; tests put only these on PATH. */
const TOOLS = [
  "sh",
  "uname",
  "tar",
  "gzip",
  "awk",
  "mktemp",
  "sha256sum",
  "shasum",
  "mkdir",
  "mv",
  "rm",
  "cp",
  "cat",
  "chmod",
  "dirname",
  "basename",
  "grep",
  "sed",
  "tr",
  "tail",
  "rmdir",
  "find",
  "sort",
  "sysctl",
];

/** The path of a tool on the test process's PATH. */
export async function which(tool: string): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    const path = join(dir, tool);
    const info = await Deno.stat(path).catch(() => undefined);
    if (info?.isFile) return path;
  }
  return undefined;
}

/** A directory of links to the offline tools (no curl, no wget), minus `omit`, plus `add`. */
export async function offlineTools(
  dir: string,
  omit: string[] = [],
  add: string[] = [],
): Promise<string> {
  const bin = join(dir, `tools-${crypto.randomUUID().slice(0, 8)}`);
  await Deno.mkdir(bin, { recursive: true });
  for (const tool of [...TOOLS, ...add]) {
    if (omit.includes(tool)) continue;
    const path = await which(tool);
    if (path) await Deno.symlink(path, join(bin, tool));
  }
  return bin;
}

export interface InstallerResult {
  code: number;
  stdout: string;
  stderr: string;
  lastLine: string;
}

/** Runs install.sh (or a copy of it) with exactly the given environment. */
export async function runInstaller(
  args: string[],
  env: Record<string, string>,
  options: { script?: string; cwd?: string } = {},
): Promise<InstallerResult> {
  const out = await new Deno.Command("/bin/sh", {
    args: [options.script ?? INSTALL_SH, ...args],
    env,
    clearEnv: true,
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  const lines = stdout.trimEnd().split("\n");
  return { code: out.code, stdout, stderr, lastLine: lines[lines.length - 1] };
}

/** Every path under dir with its content digest (or "dir" / "link"), to compare trees. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const walk = async (path: string, rel: string): Promise<void> => {
    for await (const entry of Deno.readDir(path)) {
      const full = join(path, entry.name);
      const key = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isSymlink) result[key] = "link";
      else if (entry.isDirectory) {
        result[key] = "dir";
        await walk(full, key);
      } else {
        const info = await Deno.stat(full);
        result[key] = `${(info.mode ?? 0) & 0o777}:${await sha256Hex(await Deno.readFile(full))}`;
      }
    }
  };
  await walk(dir, "");
  return result;
}
