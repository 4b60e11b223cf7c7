/**
 * One host run's world: a temp folder with a private HOME (and CODEX_HOME),
 * a git project, and a bin folder holding the pinned host CLIs and a `peaks`
 * wrapper that runs this worktree's peaks.ts under the binary's permission
 * set. Every process gets an explicit environment; HTTP(S) proxies point at
 * a loopback black hole, so whatever a host tries to reach besides the
 * stand-in is refused on this machine and recorded.
 */
import { dirname, join } from "../../../lib/infra/std.ts";
import { cacheDir, peaksArgs } from "../../support/cli.ts";
import { ensureHost, type HostId, PINNED } from "./install.ts";
import { type BlackHole, startBlackHole } from "./blackhole.ts";

export interface ProcResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface RunOptions {
  args: string[];
  stdin?: string;
  cwd?: string;
  env?: Record<string, string>;
  /** Hard bound; the whole process group is killed when it passes. */
  timeoutMs: number;
}

export interface Sandbox extends AsyncDisposable {
  root: string;
  home: string;
  project: string;
  bin: string;
  blackHole: BlackHole;
  /** The explicit environment every process of this sandbox gets (plus `extra`). */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Runs a program found in the sandbox's PATH, in the project unless told otherwise. */
  run(command: string, options: RunOptions): Promise<ProcResult>;
  /** `peaks <args>` through the wrapper, as a host's shell would run it. */
  // deno-lint-ignore no-explicit-any
  peaks(args: string[], extra?: Record<string, string>): Promise<ProcResult & { json: any }>;
}

function which(name: string, path = Deno.env.get("PATH") ?? ""): string | undefined {
  for (const dir of path.split(":")) {
    if (!dir) continue;
    try {
      const path = join(dir, name);
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

const decoder = new TextDecoder();

export async function runProcess(
  command: string,
  options: RunOptions & { env: Record<string, string>; cwd: string },
): Promise<ProcResult> {
  const program = command.includes("/") ? command : which(command, options.env.PATH) ?? command;
  const child = new Deno.Command(program, {
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    detached: true,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin)).catch(() => {});
    await writer.close().catch(() => {});
  }
  let timedOut = false;
  const killGroup = (signal: Deno.Signal) => {
    try {
      Deno.kill(-child.pid, signal);
    } catch {
      // the group is gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup("SIGKILL");
  }, options.timeoutMs);
  const out = await child.output();
  clearTimeout(timer);
  // Whatever the host left running in its group (shells, helpers) goes with it.
  killGroup("SIGKILL");
  return {
    code: out.signal ? null : out.code,
    signal: out.signal,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
    timedOut,
  };
}

export interface SandboxOptions {
  hosts: HostId[];
  /** Files written into the project before the first commit (relative path -> text). */
  files?: Record<string, string>;
}

export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "peaks-hosts-" }));
  const home = join(root, "home");
  const project = join(root, "project");
  const bin = join(root, "bin");
  const tmp = join(root, "tmp");
  for (const dir of [home, project, bin, tmp, join(home, ".codex")]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  for (const id of options.hosts) {
    const target = await ensureHost(id);
    await Deno.symlink(target, join(bin, PINNED[id].bin));
  }
  const deno = Deno.execPath();
  await Deno.writeTextFile(
    join(bin, "peaks"),
    `#!/bin/sh\nexec "${deno}" ${peaksArgs([]).map((a) => `"${a}"`).join(" ")} "$@"\n`,
  );
  await Deno.chmod(join(bin, "peaks"), 0o755);
  await Deno.writeTextFile(
    join(home, ".gitconfig"),
    "[user]\n\tname = peaks hosts\n\temail = hosts@peaks.invalid\n[init]\n\tdefaultBranch = main\n",
  );
  const blackHole = await startBlackHole();
  const systemDirs = new Set<string>();
  for (const tool of ["node", "git", "sh", "bash", "env", "tmux"]) {
    const found = which(tool);
    if (found) systemDirs.add(dirname(found));
  }
  systemDirs.add(dirname(deno));
  for (const dir of ["/usr/local/bin", "/usr/bin", "/bin"]) systemDirs.add(dir);
  const denoDir = await cacheDir();
  const proxy = blackHole.url;
  const baseEnv: Record<string, string> = {
    HOME: home,
    CODEX_HOME: join(home, ".codex"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    TMPDIR: tmp,
    PATH: [bin, ...systemDirs].join(":"),
    DENO_DIR: denoDir,
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    CI: "1",
    DENO_NO_UPDATE_CHECK: "1",
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    ALL_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    all_proxy: proxy,
    NO_PROXY: "127.0.0.1,localhost,::1",
    no_proxy: "127.0.0.1,localhost,::1",
    // The supervisor's grace and drain bounds, short: nothing here waits on a real network.
    PEAKS_DETACHED_KILL_GRACE_MS: "1000",
    PEAKS_DETACHED_DRAIN_MS: "1000",
  };
  const env = (extra: Record<string, string> = {}) => ({ ...baseEnv, ...extra });
  // Login shells (codex runs `bash -lc`) rebuild PATH from /etc/profile: put peaks back the way
  // an installer's profile line does.
  const profile = `export PATH="${baseEnv.PATH}"\n`;
  for (const name of [".profile", ".bash_profile"]) {
    await Deno.writeTextFile(join(home, name), profile);
  }
  for (const [path, text] of Object.entries(options.files ?? {})) {
    await Deno.mkdir(dirname(join(project, path)), { recursive: true });
    await Deno.writeTextFile(join(project, path), text);
  }
  const sandbox: Sandbox = {
    root,
    home,
    project,
    bin,
    blackHole,
    env,
    run: (command, o) => runProcess(command, { ...o, cwd: o.cwd ?? project, env: env(o.env) }),
    async peaks(args, extra) {
      const result = await runProcess("peaks", {
        args,
        cwd: project,
        env: env(extra),
        timeoutMs: 120_000,
      });
      // deno-lint-ignore no-explicit-any
      let json: any = undefined;
      try {
        json = JSON.parse(result.stdout);
      } catch {
        // not one JSON document
      }
      return { ...result, json };
    },
    async [Symbol.asyncDispose]() {
      await blackHole.close();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
  const git = async (...args: string[]) => {
    const result = await sandbox.run("git", { args, timeoutMs: 60_000 });
    if (result.code !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  };
  await git("init", "-q");
  await Deno.writeTextFile(join(project, "README.md"), "# sample project\n");
  await git("add", "-A");
  await git("commit", "-q", "-m", "initial");
  return sandbox;
}
