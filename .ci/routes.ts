/**
 * Every install route the README documents, from a fresh clone, each in an empty HOME on a PATH
 * without Deno, ending with `peaks --version` in a new shell (`bash -i`, which reads ~/.bashrc
 * as a terminal would):
 *
 *   clone     npm install -g deno@<pinned>, then deno task install:peaks in the clone, then the
 *             line its last lines say to add (if any) goes into ~/.bashrc as the README says
 *   curl      curl -fsSL <releases>/latest/download/install.sh | sh, the releases address a local
 *             folder (file://) holding what a published release holds
 *   archive   sh install.sh --archive <archive> --checksums SHA256SUMS (the air-gapped route)
 *
 * The archive holds a compiled peaks when `deno compile` can fetch its runtime; otherwise a
 * stand-in that answers --version as the binary does, and the output says so. install.ps1 runs
 * under pwsh in `deno task test:pwsh`; the Claude Code plugin brings skills, not the binary.
 *
 *   deno run -A .ci/routes.ts [clone] [curl] [archive]     (no names: all three)
 *
 * Needs git, bash, curl, npm and the npm registry. Last line: "<passed> passed, <failed> failed".
 */
import { join } from "../lib/infra/std.ts";
import { VERSION } from "../lib/infra/command/build.ts";
import { compileArgs } from "../release/compile.ts";
import { projectRepository, REPO_ROOT } from "../release/package.ts";
import { writeInstallers } from "../release/installers.ts";
import { hostTarget } from "../release/targets.ts";
import { buildRelease } from "../tests/support/release.ts";

const DENO_VERSION = Deno.version.deno;
const ROUTES = ["clone", "curl", "archive"] as const;
type Route = (typeof ROUTES)[number];

const work = await Deno.makeTempDir({ prefix: "peaks-routes-" });
let passed = 0;
let failed = 0;

interface Ran {
  code: number;
  out: string;
}

/** The machine's TLS and proxy settings (a CA bundle, a proxy): kept, as a new shell keeps them. */
const NETWORK = Object.fromEntries(
  Object.entries(Deno.env.toObject()).filter(([k]) =>
    /(^SSL_|CERTS?$|CA_BUNDLE$|CAINFO$|_PROXY$|^DENO_TLS_CA_STORE$|^DENO_CERT$)/i.test(k)
  ),
);

async function sh(script: string, env: Record<string, string>, cwd = work): Promise<Ran> {
  const out = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd,
    env: { ...NETWORK, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, out: text };
}

/** This PATH with every `deno` hidden: a folder holding one is replaced by links to its other entries. */
async function pathWithoutDeno(): Promise<string> {
  const dirs: string[] = [];
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").filter(Boolean)) {
    let hasDeno = false;
    try {
      hasDeno = (await Deno.stat(join(dir, "deno"))).isFile;
    } catch {
      // no deno here
    }
    if (!hasDeno) {
      dirs.push(dir);
      continue;
    }
    const shadow = await Deno.makeTempDir({ dir: work, prefix: "path-" });
    for await (
      const entry of Deno.readDir(dir)
    ) {
      if (entry.name !== "deno") {
        await Deno.symlink(join(dir, entry.name), join(shadow, entry.name));
      }
    }
    dirs.push(shadow);
  }
  return dirs.join(":");
}

/** An empty HOME whose ~/.bashrc starts empty; a new shell is `bash -i` there. */
async function emptyHome(name: string): Promise<string> {
  const home = join(work, name);
  await Deno.mkdir(home, { recursive: true });
  await Deno.writeTextFile(join(home, ".bashrc"), "");
  return home;
}

async function newShellVersion(home: string, path: string): Promise<Ran> {
  return await sh(
    "bash -i -c 'peaks --version' 2>&1",
    { HOME: home, PATH: path, TERM: "dumb" },
    home,
  );
}

function verdict(route: Route, result: Ran, log: string[]): void {
  const ok = result.code === 0 && result.out.split("\n").includes(`peaks ${VERSION}`);
  if (ok) passed++;
  else failed++;
  console.log(
    `routes: ${route}: ${ok ? "ok" : "FAILED"}: peaks --version in a new shell said ${
      JSON.stringify(result.out.trim().split("\n").at(-1) ?? "")
    } (exit ${result.code})`,
  );
  if (!ok) { for (const line of log) console.log(`  ${line}`); }
}

async function cloneRoute(path: string): Promise<void> {
  const clone = join(work, "clone");
  const cloned = await sh(`git clone --quiet --no-hardlinks ${q(REPO_ROOT)} ${q(clone)}`, {
    PATH: path,
    HOME: work,
  });
  const home = await emptyHome("home-clone");
  const log = [cloned.out];
  // A user without root gives npm a global folder in HOME and puts its bin on PATH; npm's
  // download cache is the machine's, so the package is not fetched twice.
  const prefix = join(home, ".npm-global");
  await Deno.writeTextFile(
    join(home, ".bashrc"),
    `export NPM_CONFIG_PREFIX=${q(prefix)}\nexport PATH=${q(`${prefix}/bin`)}:"$PATH"\n`,
  );
  const env = { HOME: home, PATH: path, TERM: "dumb", npm_config_cache: npmCache() };
  const steps = [
    `npm install -g deno@${DENO_VERSION}`,
    `cd ${q(clone)} && deno task install:peaks`,
  ];
  for (const step of steps) {
    const ran = await sh(`bash -i -c ${q(step)} 2>&1`, env, home);
    log.push(`$ ${step} (exit ${ran.code})`, ...ran.out.trim().split("\n").slice(-6));
    // The task's last lines name the line to add; the README says to put it in the profile.
    const add = ran.out.match(/add it with: (export PATH="[^"]+")/);
    if (add) await Deno.writeTextFile(join(home, ".bashrc"), `${add[1]}\n`, { append: true });
  }
  verdict("clone", await newShellVersion(home, path), log);
}

function q(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function npmCache(): string {
  return Deno.env.get("npm_config_cache") ?? join(Deno.env.get("HOME") ?? work, ".npm");
}

/** A releases folder as a published release lays it out, with this machine's archive. */
async function localRelease(
  path: string,
): Promise<{ base: string; dist: string; archive: string }> {
  const target = hostTarget();
  if (!target) throw new Error(`no release target for ${Deno.build.target}`);
  const compiled = join(work, "compiled", "peaks");
  await Deno.mkdir(join(work, "compiled"));
  const compile = await new Deno.Command(Deno.execPath(), {
    args: compileArgs(target, compiled),
    cwd: REPO_ROOT,
    env: { PATH: path },
    stdout: "null",
    stderr: "null",
  }).output();
  console.log(
    compile.code === 0
      ? "routes: the archive holds a compiled peaks"
      : "routes: deno compile could not build a binary here (its runtime comes from dl.deno.land); the archive holds a stand-in that answers --version as the binary does",
  );
  const dist = join(work, "dist");
  const release = await buildRelease(dist, {
    version: VERSION,
    target,
    ...(compile.code === 0 ? { binaryPath: compiled } : {}),
  });
  await writeInstallers(dist, `${await projectRepository()}/releases`);
  const base = join(work, "releases");
  for (const folder of [join(base, "latest", "download"), join(base, "download", `v${VERSION}`)]) {
    await Deno.mkdir(folder, { recursive: true });
    for (const file of ["install.sh", "SHA256SUMS", release.name]) {
      await Deno.copyFile(join(dist, file), join(folder, file));
    }
  }
  return { base, dist, archive: release.archive };
}

async function curlRoute(path: string, base: string): Promise<void> {
  const home = await emptyHome("home-curl");
  const command = `curl -fsSL file://${base}/latest/download/install.sh | sh`;
  const ran = await sh(command, {
    HOME: home,
    PATH: path,
    SHELL: "/bin/bash",
    PEAKS_DOWNLOAD_BASE: `file://${base}`,
  }, home);
  verdict("curl", await newShellVersion(home, path), [`$ ${command} (exit ${ran.code})`, ran.out]);
}

async function archiveRoute(path: string, dist: string, archive: string): Promise<void> {
  const home = await emptyHome("home-archive");
  const command = `sh install.sh --archive ${q(archive)} --checksums SHA256SUMS`;
  const ran = await sh(command, { HOME: home, PATH: path, SHELL: "/bin/bash" }, dist);
  verdict("archive", await newShellVersion(home, path), [
    `$ ${command} (exit ${ran.code})`,
    ran.out,
  ]);
}

try {
  const chosen = Deno.args.length ? Deno.args : [...ROUTES];
  const unknown = chosen.filter((r) => !(ROUTES as readonly string[]).includes(r));
  if (unknown.length) {
    throw new Error(`no route named ${unknown.join(", ")} (routes: ${ROUTES.join(" ")})`);
  }
  const path = await pathWithoutDeno();
  if (chosen.includes("clone")) await cloneRoute(path);
  if (chosen.includes("curl") || chosen.includes("archive")) {
    const release = await localRelease(path);
    if (chosen.includes("curl")) await curlRoute(path, release.base);
    if (chosen.includes("archive")) await archiveRoute(path, release.dist, release.archive);
  }
} catch (error) {
  console.log(`routes: ${(error as Error).message}`);
  failed++;
} finally {
  await Deno.remove(work, { recursive: true }).catch(() => {});
}
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(failed ? 1 : 0);
