/**
 * Builds the release binaries and their archives.
 *
 *   deno task compile          this machine's target
 *   deno task compile:all      all six targets
 *   deno run -A release/compile.ts --target <t> [--target <t>...] [--out dist]
 *
 * Each binary is `deno compile` of peaks.ts with exactly the `peaks`
 * permission set from deno.json and the skills tree embedded, then packed by
 * package.ts into dist/ next to SHA256SUMS. Every lazily imported module is
 * an extra root (lazy_modules.ts): with deno.json's lazy-dynamic-imports,
 * the compile graph would otherwise leave the command modules out.
 */
import { V8_FLAGS, VERSION } from "../lib/infra/command/build.ts";
import { join, parseArgs, resolve } from "../lib/infra/std.ts";
import { explainCompileFailure, runtimeCachePath } from "./compile_failure.ts";
import { lazyModules } from "./lazy_modules.ts";
import { ReleaseError, runMain } from "./errors.ts";
import {
  type PackagedArchive,
  packageTarget,
  projectVersion,
  REPO_ROOT,
  writeChecksums,
} from "./package.ts";
import { binaryName, hostTarget, isTarget, type Target, TARGETS } from "./targets.ts";

/** The `deno compile` arguments for one target; cwd is the repository root. */
export function compileArgs(target: Target, output: string): string[] {
  return [
    "compile",
    "-q",
    "--frozen",
    "--config",
    "deno.json",
    "-P=peaks",
    V8_FLAGS,
    "--no-prompt",
    "--include",
    "skills",
    ...lazyModules().flatMap((module) => ["--include", module]),
    "--target",
    target,
    "--output",
    output,
    "peaks.ts",
  ];
}

async function denoDir(): Promise<string> {
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return resolve(fromEnv);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function compileTarget(target: Target, all: Target[], outDir: string): Promise<string> {
  const output = join(outDir, "build", target, binaryName(target));
  await Deno.mkdir(join(outDir, "build", target), { recursive: true });
  const result = await new Deno.Command(Deno.execPath(), {
    args: compileArgs(target, output),
    cwd: REPO_ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    const stderr = new TextDecoder().decode(result.stderr);
    const stdout = new TextDecoder().decode(result.stdout);
    const dir = await denoDir();
    const missingRuntimes: string[] = [];
    for (const t of all) {
      if (!await exists(runtimeCachePath(dir, Deno.version.deno, t))) missingRuntimes.push(t);
    }
    throw new ReleaseError(
      explainCompileFailure({
        target,
        output: `${stdout}\n${stderr}`,
        denoVersion: Deno.version.deno,
        denoDir: dir,
        denortBin: Deno.env.get("DENORT_BIN"),
        missingRuntimes,
      }),
    );
  }
  return output;
}

function resolveTargets(flags: Record<string, unknown>): Target[] {
  const asked = (flags.target as string[] | undefined) ?? [];
  if (flags.all) return [...TARGETS];
  if (flags.host) {
    const host = hostTarget();
    if (!host) {
      throw new ReleaseError(
        `peaks is not released for this machine (${Deno.build.target}); ` +
          `pass --target with one of: ${TARGETS.join(", ")}`,
      );
    }
    asked.push(host);
  }
  for (const target of asked) {
    if (!isTarget(target)) {
      throw new ReleaseError(`unknown target "${target}"; one of: ${TARGETS.join(", ")}`, 2);
    }
  }
  if (asked.length === 0) throw new ReleaseError(`choose targets\n${USAGE}`, 2);
  return [...new Set(asked as Target[])];
}

const USAGE =
  `Usage: deno run -A release/compile.ts (--host | --all | --target <target>...) [--out dist]
                                      [--expect-version <v>] [--no-package]

Binaries go to <out>/build/<target>/, archives and SHA256SUMS to <out>/.
--no-package stops after compiling.

Targets: ${TARGETS.join(", ")}`;

async function main(args: string[]): Promise<void> {
  const flags = parseArgs(args, {
    string: ["target", "out", "expect-version"],
    boolean: ["host", "all", "no-package", "help"],
    collect: ["target"],
    unknown: (arg) => {
      throw new ReleaseError(`unknown option ${arg}\n${USAGE}`, 2);
    },
  });
  if (flags.help) return void console.log(USAGE);
  const targets = resolveTargets(flags);
  const version = await projectVersion();
  if (version !== VERSION) {
    throw new ReleaseError(
      `deno.json says ${version} but lib/infra/command/build.ts says ${VERSION}; make them equal first.`,
    );
  }
  const expected = (flags["expect-version"] as string | undefined)?.replace(/^v/, "");
  if (expected !== undefined && expected !== version) {
    throw new ReleaseError(`the tag asks for ${expected} but deno.json says ${version}.`);
  }
  const outDir = resolve((flags.out as string | undefined) ?? join(REPO_ROOT, "dist"));

  const binaries: [Target, string][] = [];
  for (const target of targets) {
    console.log(`compiling peaks ${version} for ${target}`);
    binaries.push([target, await compileTarget(target, targets, outDir)]);
  }
  if (flags["no-package"]) {
    for (const [, binary] of binaries) console.log(`wrote ${binary}`);
    return;
  }
  const archives: PackagedArchive[] = [];
  for (const [target, binary] of binaries) {
    archives.push(await packageTarget({ binary, target, version, outDir }));
  }
  const sums = await writeChecksums(outDir, version);
  for (const archive of archives) console.log(`wrote ${archive.path}`);
  console.log(`wrote ${sums}`);
}

if (import.meta.main) await runMain(() => main(Deno.args));
