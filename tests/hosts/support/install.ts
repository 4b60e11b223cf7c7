/**
 * The pinned host CLIs, installed from the npm registry into a cache folder
 * outside the repository (`$PEAKS_HOSTS_CACHE`, default
 * `~/.cache/peaks-hosts`), one folder per package and version, reused when
 * present. A folder counts only once its install finished and the binary
 * answered `--version` (a marker file says so); a failed or hung npm is a
 * clear error, never a wait without end.
 */
import { join } from "../../../lib/infra/std.ts";

export type HostId = "claude" | "codex" | "gemini" | "opencode" | "copilot" | "qwen";

export interface Pinned {
  id: HostId;
  pkg: string;
  version: string;
  /** The command name on PATH. */
  bin: string;
  /** What `--version` prints contains this. */
  versionText: string;
}

export const PINNED: Record<HostId, Pinned> = {
  claude: {
    id: "claude",
    pkg: "@anthropic-ai/claude-code",
    version: "2.1.328",
    bin: "claude",
    versionText: "2.1.328",
  },
  codex: {
    id: "codex",
    pkg: "@openai/codex",
    version: "0.169.0",
    bin: "codex",
    versionText: "0.169.0",
  },
  gemini: {
    id: "gemini",
    pkg: "@google/gemini-cli",
    version: "0.61.0",
    bin: "gemini",
    versionText: "0.61.0",
  },
  opencode: {
    id: "opencode",
    pkg: "opencode-ai",
    version: "1.18.33",
    bin: "opencode",
    versionText: "1.18.33",
  },
  copilot: {
    id: "copilot",
    pkg: "@github/copilot",
    version: "1.0.102",
    bin: "copilot",
    versionText: "1.0.102",
  },
  qwen: {
    id: "qwen",
    pkg: "@qwen-code/qwen-code",
    version: "0.24.4",
    bin: "qwen",
    versionText: "0.24.4",
  },
};

const MARKER = ".peaks-hosts-ready";
const INSTALL_TIMEOUT_MS = 15 * 60_000;

export function cacheRoot(): string {
  const explicit = Deno.env.get("PEAKS_HOSTS_CACHE");
  if (explicit) return explicit;
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  if (!home) {
    throw new Error("neither PEAKS_HOSTS_CACHE nor HOME is set: nowhere to cache the host CLIs");
  }
  return join(home, ".cache", "peaks-hosts");
}

/** `@scope/name@1.2.3` -> `scope+name@1.2.3` */
export function folderName(pinned: Pinned): string {
  return `${pinned.pkg.replace(/^@/, "").replace("/", "+")}@${pinned.version}`;
}

export function hostDir(pinned: Pinned): string {
  return join(cacheRoot(), folderName(pinned));
}

export function hostBin(pinned: Pinned): string {
  return join(hostDir(pinned), "node_modules", ".bin", pinned.bin);
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; timeoutMs: number; env?: Record<string, string> },
): Promise<{ code: number; out: string }> {
  const child = new Deno.Command(cmd, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // gone
    }
  }, options.timeoutMs);
  const output = await child.output();
  clearTimeout(timer);
  const decoder = new TextDecoder();
  return {
    code: output.signal ? -1 : output.code,
    out: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

const inflight = new Map<HostId, Promise<string>>();

/** The path of the host's binary, installing the pinned version into the cache first when needed. */
export function ensureHost(id: HostId): Promise<string> {
  let pending = inflight.get(id);
  if (!pending) {
    pending = install(PINNED[id]);
    inflight.set(id, pending);
  }
  return pending;
}

async function install(pinned: Pinned): Promise<string> {
  const dir = hostDir(pinned);
  const bin = hostBin(pinned);
  if (await exists(join(dir, MARKER)) && await exists(bin)) return bin;
  await Deno.mkdir(cacheRoot(), { recursive: true });
  // A half-finished folder from an earlier run is removed, not trusted.
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(dir, { recursive: true });
  const spec = `${pinned.pkg}@${pinned.version}`;
  const npm = await run("npm", [
    "install",
    "--prefix",
    dir,
    "--no-audit",
    "--no-fund",
    "--no-save",
    "--loglevel=error",
    spec,
  ], { timeoutMs: INSTALL_TIMEOUT_MS }).catch((error) => ({ code: -2, out: String(error) }));
  if (npm.code !== 0) {
    throw new Error(
      `could not install ${spec} from the npm registry into ${dir} ` +
        `(${
          npm.code === -1
            ? `no answer within ${INSTALL_TIMEOUT_MS / 60_000} min`
            : `npm exit ${npm.code}`
        }):\n${npm.out.slice(-2000)}`,
    );
  }
  const home = await Deno.makeTempDir({ prefix: "peaks-hosts-version-" });
  const version = await run(bin, ["--version"], {
    timeoutMs: 60_000,
    cwd: home,
    env: { HOME: home, CODEX_HOME: join(home, ".codex"), PATH: Deno.env.get("PATH") ?? "" },
  }).catch((error) => ({ code: -2, out: String(error) }));
  await Deno.remove(home, { recursive: true }).catch(() => {});
  if (version.code !== 0 || !version.out.includes(pinned.versionText)) {
    throw new Error(
      `${spec} installed but \`${pinned.bin} --version\` answered (${version.code}): ${
        version.out.slice(-500)
      }`,
    );
  }
  await Deno.writeTextFile(join(dir, MARKER), `${spec}\n`);
  return bin;
}
