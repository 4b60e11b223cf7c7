/**
 * Packs one executable with the skills tree, the Claude Code plugin manifests and hooks, the other
 * hosts' packages (extensions/) and the license files into
 * `peaks-<version>-<target>.tar.gz|zip` and refreshes SHA256SUMS.
 *
 *   deno run -A release/package.ts --binary <file> --target <target> [--out dist] [--root .]
 *
 * compile.ts calls the same functions for every binary it builds; run on its
 * own it packages any executable (the installer tests use a stand-in).
 */
import { fromFileUrl, join, parseArgs, resolve } from "../lib/infra/std.ts";
import { type ArchiveEntry, tarGz, zip } from "./archive.ts";
import { ReleaseError, runMain } from "./errors.ts";
import { archiveName, binaryName, isTarget, isWindows, type Target, TARGETS } from "./targets.ts";

/** Files every archive carries next to the binary, read from the repository root. */
export const DOC_FILES = ["LICENSE", "README.md", "THIRD_PARTY_LICENSES.md"];
/**
 * The Claude Code plugin manifests and icon, read from the repository root: with them an unpacked
 * archive (and so an installed $PEAKS_HOME) is a plugin marketplace serving its skills/ tree.
 */
export const PLUGIN_FILES = [
  ".claude-plugin/plugin.json",
  ".claude-plugin/marketplace.json",
  ".claude-plugin/icon.png",
];
/**
 * The Claude Code plugin's hooks, and the other hosts' packages (each host CLI installs its folder
 * from an unpacked archive, so from $PEAKS_HOME, offline).
 */
export const HOOK_FILES = ["hooks/hooks.json"];
export const PACKAGE_TREES = ["extensions"];
/** Placeholders and OS litter that never ship. */
const SKIPPED = new Set([".gitkeep", ".DS_Store"]);

export const REPO_ROOT = resolve(fromFileUrl(new URL("../", import.meta.url)));

/**
 * The project's repository address, deno.json's "repository": the one place it is written. Its
 * releases page (`<repository>/releases`) is where the installers download from; the README, the
 * plugin manifest and the peaks-code skill quote it, and tests/repo/repository_url_test.ts holds
 * them to it.
 */
export async function projectRepository(root = REPO_ROOT): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const url = config.repository;
  if (
    typeof url !== "string" ||
    !/^https:\/\/[A-Za-z0-9.-]+\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(url)
  ) {
    throw new ReleaseError(`deno.json has no usable "repository" (found ${JSON.stringify(url)}).`);
  }
  return url;
}

/** The version in deno.json: archive names and the binary's `--version` both use it. */
export async function projectVersion(root = REPO_ROOT): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const version = config.version;
  if (typeof version !== "string" || !/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/.test(version)) {
    throw new ReleaseError(`deno.json has no usable "version" (found ${JSON.stringify(version)}).`);
  }
  return version;
}

async function readRequired(path: string, what: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ReleaseError(`${what} is missing: ${path}. Every archive ships it.`);
    }
    throw error;
  }
}

function isExecutable(info: Deno.FileInfo): boolean {
  return Deno.build.os !== "windows" && ((info.mode ?? 0) & 0o111) !== 0;
}

/** The skills tree as archive entries, sorted so archives are reproducible. */
export function skillsEntries(root: string): Promise<ArchiveEntry[]> {
  return treeEntries(root, "skills");
}

/** A tree of plain files under the root as archive entries, sorted so archives are reproducible. */
export async function treeEntries(root: string, name: string): Promise<ArchiveEntry[]> {
  const top = join(root, name);
  const info = await Deno.stat(top).catch(() => undefined);
  if (!info?.isDirectory) {
    throw new ReleaseError(`${name}/ is missing: ${top}. Every archive ships it.`);
  }
  const entries: ArchiveEntry[] = [{ path: `${name}/`, mode: 0o755 }];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const children: Deno.DirEntry[] = [];
    for await (const child of Deno.readDir(dir)) children.push(child);
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      if (SKIPPED.has(child.name)) continue;
      const path = join(dir, child.name);
      const inside = `${prefix}${child.name}`;
      if (child.isSymlink) {
        throw new ReleaseError(
          `${inside} is a symbolic link; the ${name} tree must hold plain files.`,
        );
      }
      if (child.isDirectory) {
        entries.push({ path: `${inside}/`, mode: 0o755 });
        await walk(path, `${inside}/`);
      } else {
        const stat = await Deno.stat(path);
        entries.push({
          path: inside,
          data: await Deno.readFile(path),
          mode: isExecutable(stat) ? 0o755 : 0o644,
        });
      }
    }
  };
  await walk(top, `${name}/`);
  return entries;
}

export interface PackageOptions {
  binary: string;
  target: Target;
  version: string;
  outDir: string;
  /** Where skills/ and the license files are read from. */
  root?: string;
  /** Timestamp of every entry; SOURCE_DATE_EPOCH when set, else now. */
  mtime?: Date;
}

export interface PackagedArchive {
  name: string;
  path: string;
  sha256: string;
}

export function buildTime(): Date {
  const epoch = Deno.env.get("SOURCE_DATE_EPOCH");
  if (epoch && /^\d+$/.test(epoch)) return new Date(Number(epoch) * 1000);
  return new Date();
}

export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Writes the archive for one target and returns its name, path and digest. */
export async function packageTarget(options: PackageOptions): Promise<PackagedArchive> {
  const root = options.root ?? REPO_ROOT;
  const binary = await readRequired(options.binary, "The executable");
  const entries: ArchiveEntry[] = [{ path: binaryName(options.target), data: binary, mode: 0o755 }];
  for (const file of DOC_FILES) {
    entries.push({ path: file, data: await readRequired(join(root, file), file), mode: 0o644 });
  }
  entries.push(...await skillsEntries(root));
  entries.push({ path: ".claude-plugin/", mode: 0o755 });
  for (const file of PLUGIN_FILES) {
    entries.push({ path: file, data: await readRequired(join(root, file), file), mode: 0o644 });
  }
  entries.push({ path: "hooks/", mode: 0o755 });
  for (const file of HOOK_FILES) {
    entries.push({ path: file, data: await readRequired(join(root, file), file), mode: 0o644 });
  }
  for (const tree of PACKAGE_TREES) entries.push(...await treeEntries(root, tree));
  const mtime = options.mtime ?? buildTime();
  const bytes = isWindows(options.target) ? await zip(entries, mtime) : await tarGz(entries, mtime);
  const name = archiveName(options.version, options.target);
  await Deno.mkdir(options.outDir, { recursive: true });
  const path = join(options.outDir, name);
  const temp = `${path}.tmp`;
  await Deno.writeFile(temp, bytes);
  await Deno.rename(temp, path);
  return { name, path, sha256: await sha256Hex(bytes) };
}

/**
 * Writes SHA256SUMS for every archive of this version in outDir, in the
 * format `sha256sum -c` and `shasum -a 256 -c` read.
 */
export async function writeChecksums(outDir: string, version: string): Promise<string> {
  const names = TARGETS.map((target) => archiveName(version, target));
  const lines: string[] = [];
  for (const name of names.toSorted()) {
    const data = await Deno.readFile(join(outDir, name)).catch(() => undefined);
    if (data) lines.push(`${await sha256Hex(data)}  ${name}`);
  }
  if (lines.length === 0) throw new ReleaseError(`no archives for ${version} in ${outDir}`);
  const path = join(outDir, "SHA256SUMS");
  await Deno.writeTextFile(`${path}.tmp`, lines.join("\n") + "\n");
  await Deno.rename(`${path}.tmp`, path);
  return path;
}

const USAGE =
  `Usage: deno run -A release/package.ts --binary <file> --target <target> [--out dist] [--root .]

Targets: ${TARGETS.join(", ")}`;

async function main(args: string[]): Promise<void> {
  const flags = parseArgs(args, {
    string: ["binary", "target", "out", "root"],
    boolean: ["help"],
    unknown: (arg) => {
      throw new ReleaseError(`unknown option ${arg}\n${USAGE}`, 2);
    },
  });
  if (flags.help) return void console.log(USAGE);
  const binary = flags.binary as string | undefined;
  const target = flags.target as string | undefined;
  if (!binary || !target) throw new ReleaseError(`--binary and --target are required\n${USAGE}`, 2);
  if (!isTarget(target)) {
    throw new ReleaseError(`unknown target "${target}"; one of: ${TARGETS.join(", ")}`, 2);
  }
  const root = resolve((flags.root as string | undefined) ?? REPO_ROOT);
  const outDir = resolve((flags.out as string | undefined) ?? join(REPO_ROOT, "dist"));
  const version = await projectVersion(root);
  const archive = await packageTarget({ binary: resolve(binary), target, version, outDir, root });
  const sums = await writeChecksums(outDir, version);
  console.log(`${archive.name}  ${archive.sha256}`);
  console.log(`wrote ${archive.path}`);
  console.log(`wrote ${sums}`);
}

if (import.meta.main) await runMain(() => main(Deno.args));
