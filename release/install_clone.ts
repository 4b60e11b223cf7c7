/**
 * `deno task install:peaks`: puts a `peaks` on PATH that runs this clone with exactly the compiled
 * binary's permissions, the permission set "peaks" of deno.json. Deno 2.9's
 * `deno install --global` drops `-P` from the script it writes, so the set is written out as the
 * equivalent `--allow-*` flags, plus `--no-prompt` (the binary never prompts).
 *
 *   deno task install:peaks [--root <dir>]     (from another folder: deno task --config <clone>/deno.json install:peaks)
 *   deno uninstall --global peaks [--root <dir>]
 *
 * The script lands in Deno's bin folder (`~/.deno/bin`, or `<dir>/bin` with --root) and runs
 * `deno` from PATH each time, so Deno must stay installed and on PATH. When either is missing from
 * the PATH a new shell gets (a Deno that came through `npx` lives in npm's temporary cache), the
 * task ends by printing the exact step that fixes it.
 */
import { fromFileUrl, join, parseArgs, resolve } from "../lib/infra/std.ts";
import { V8_FLAGS } from "../lib/infra/command/build.ts";
import { ReleaseError, runMain } from "./errors.ts";

export const REPO_ROOT = resolve(fromFileUrl(new URL("../", import.meta.url)));

/** Permission kinds a Deno permission set can hold, in the order their flags are written. */
const KINDS = ["read", "write", "env", "net", "run", "import", "sys", "ffi"] as const;

/** The `--allow-*` flags that grant exactly what a deno.json permission set grants. */
export function permissionFlags(set: Record<string, unknown>): string[] {
  const unknown = Object.keys(set).filter((kind) => !(KINDS as readonly string[]).includes(kind));
  if (unknown.length) {
    throw new ReleaseError(`the permission set has kinds this script cannot map: ${unknown}`);
  }
  const flags: string[] = [];
  for (const kind of KINDS) {
    const value = set[kind];
    if (value === undefined || value === false) continue;
    if (value === true) flags.push(`--allow-${kind}`);
    else if (Array.isArray(value) && value.every((v) => typeof v === "string") && value.length) {
      flags.push(`--allow-${kind}=${value.join(",")}`);
    } else {
      throw new ReleaseError(`permission "${kind}" must be true, false or a list of strings`);
    }
  }
  return flags;
}

/** deno.json's permission set "peaks". */
export async function peaksPermissions(root = REPO_ROOT): Promise<Record<string, unknown>> {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const set = config.permissions?.peaks;
  if (!set || typeof set !== "object") {
    throw new ReleaseError('deno.json has no permission set "peaks"');
  }
  return set;
}

/** The `deno install` arguments that put this clone's peaks on PATH. */
export async function installArgs(options: { root?: string } = {}): Promise<string[]> {
  return [
    "install",
    "--global",
    "--force",
    "--name",
    "peaks",
    ...(options.root ? ["--root", options.root] : []),
    "--no-prompt",
    ...permissionFlags(await peaksPermissions()),
    V8_FLAGS,
    "--config",
    join(REPO_ROOT, "deno.json"),
    join(REPO_ROOT, "peaks.ts"),
  ];
}

/** A PATH entry that a new shell will not have: npx's temporary cache, a package's .bin. */
function temporary(dir: string): boolean {
  return /[\\/]_npx[\\/]/.test(dir) || /[\\/]node_modules[\\/]\.bin[\\/]?$/.test(dir);
}

/**
 * What still stands between the install and a `peaks --version` that works in a new shell, each
 * step a line to run: `bin` on PATH, and a `deno` on PATH outside npx's cache. `hasDeno` says
 * whether a folder holds a deno executable.
 */
export function pathSteps(
  bin: string,
  pathEnv: string,
  hasDeno: (dir: string) => boolean,
  windows = Deno.build.os === "windows",
): string[] {
  const trim = (dir: string) => dir.replace(/[\\/]+$/, "");
  const dirs = pathEnv.split(windows ? ";" : ":").filter((d) => d && !temporary(d)).map(trim);
  const steps: string[] = [];
  if (!dirs.includes(trim(bin))) {
    steps.push(
      windows
        ? `${bin} is not on PATH; add it for this shell with: $env:Path = "${bin};" + $env:Path` +
          " (and in System Properties > Environment Variables for good)"
        : `${bin} is not on PATH; add it with: export PATH="${bin}:$PATH"` +
          " (and the same line in ~/.bashrc, ~/.zshrc or your shell's profile for good)",
    );
  }
  if (!dirs.some(hasDeno)) {
    steps.push(
      "the installed peaks runs `deno` from PATH and a new shell has none (a Deno from npx is " +
        "temporary); install it with: npm install -g deno@2.9.6",
    );
  }
  return steps;
}

function denoIn(dir: string): boolean {
  for (const name of Deno.build.os === "windows" ? ["deno.exe", "deno.cmd"] : ["deno"]) {
    try {
      if (Deno.statSync(join(dir, name)).isFile) return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** Deno's bin folder for `deno install --global`: <root>/bin, $DENO_INSTALL_ROOT/bin or ~/.deno/bin. */
function binFolder(root: string | undefined): string {
  const installRoot = root ?? Deno.env.get("DENO_INSTALL_ROOT");
  if (installRoot) return join(installRoot, "bin");
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? "~";
  return join(home, ".deno", "bin");
}

const USAGE = "Usage: deno task install:peaks [--root <dir>]\n" +
  "Remove it with: deno uninstall --global peaks [--root <dir>]";

async function main(args: string[]): Promise<void> {
  const flags = parseArgs(args, {
    string: ["root"],
    boolean: ["help"],
    unknown: (arg) => {
      throw new ReleaseError(`unknown option ${arg}\n${USAGE}`, 2);
    },
  });
  if (flags.help) return void console.log(USAGE);
  // deno task runs in the clone; a relative --root means the folder the user ran it from.
  const from = Deno.env.get("INIT_CWD") ?? Deno.cwd();
  const root = flags.root ? resolve(from, String(flags.root)) : undefined;
  const out = await new Deno.Command("deno", {
    args: await installArgs({ root }),
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new ReleaseError(`deno install failed (exit ${out.code})`);
  const bin = binFolder(root);
  console.log(
    `peaks now runs this clone (${REPO_ROOT}) from ${bin}, with the binary's permissions.`,
  );
  console.log("Remove it with: deno uninstall --global peaks" + (root ? ` --root ${root}` : ""));
  const steps = pathSteps(bin, Deno.env.get("PATH") ?? "", denoIn);
  if (steps.length) {
    console.log("Before `peaks` runs in a new shell:");
    for (const step of steps) console.log(`- ${step}`);
  }
  console.log("Then, in a new shell: peaks --version");
}

if (import.meta.main) await runMain(() => main(Deno.args));
