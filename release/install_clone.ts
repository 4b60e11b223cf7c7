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
 * `deno` from PATH each time, so Deno must stay installed.
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
    "--quiet",
    "--no-prompt",
    ...permissionFlags(await peaksPermissions()),
    V8_FLAGS,
    "--config",
    join(REPO_ROOT, "deno.json"),
    join(REPO_ROOT, "peaks.ts"),
  ];
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
  const bin = root ? join(root, "bin") : "Deno's bin folder (~/.deno/bin)";
  console.log(
    `peaks now runs this clone (${REPO_ROOT}) from ${bin}, with the binary's permissions.`,
  );
  console.log("Remove it with: deno uninstall --global peaks" + (root ? ` --root ${root}` : ""));
}

if (import.meta.main) await runMain(() => main(Deno.args));
