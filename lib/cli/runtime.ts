/** The real process around the kernel: stdio, env, clock. Tests build their own Ctx. */
import type { Ctx, Env, Input, Output } from "../infra/command/ctx.ts";
import { isCompiled, V8_FLAGS } from "../infra/command/build.ts";
import { within } from "../infra/timer.ts";

const encoder = new TextEncoder();

function isBrokenPipe(error: unknown): boolean {
  return error instanceof Deno.errors.BrokenPipe ||
    (error instanceof Error && /broken pipe|os error 32|EPIPE/i.test(error.message));
}

function output(stream: typeof Deno.stdout | typeof Deno.stderr): Output {
  let closed = false;
  return {
    isTerminal: stream.isTerminal(),
    async write(text: string) {
      if (closed) return;
      const bytes = encoder.encode(text);
      try {
        let written = 0;
        while (written < bytes.length) written += await stream.write(bytes.subarray(written));
      } catch (error) {
        if (!isBrokenPipe(error)) throw error;
        closed = true;
      }
    },
  };
}

function input(): Input {
  return {
    isTerminal: Deno.stdin.isTerminal(),
    async readAll(options = {}) {
      if (Deno.stdin.isTerminal()) return undefined;
      const chunks: Uint8Array[] = [];
      let total = 0;
      const max = options.maxBytes ?? Infinity;
      const reading = (async () => {
        const buffer = new Uint8Array(64 * 1024);
        while (total <= max) {
          const n = await Deno.stdin.read(buffer);
          if (n === null) break;
          chunks.push(buffer.slice(0, n));
          total += n;
        }
      })();
      if (options.timeoutMs !== undefined) {
        await within(reading.catch(() => {}), options.timeoutMs);
      } else {
        await reading;
      }
      if (chunks.length === 0) return options.timeoutMs !== undefined ? undefined : "";
      const all = new Uint8Array(total);
      let offset = 0;
      for (const chunk of chunks) {
        all.set(chunk, offset);
        offset += chunk.length;
      }
      return new TextDecoder().decode(all);
    },
  };
}

const env: Env = {
  get(name: string) {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined;
    }
  },
};

/** file: URL to a local path, without loading std (this module is on every call's path). */
function localPath(url: URL): string {
  const path = decodeURIComponent(url.pathname);
  return /^\/[A-Za-z]:/.test(path) ? path.slice(1).replaceAll("/", "\\") : path;
}

/**
 * The compiled binary may run itself only as `peaks` (the name in the run
 * allow-list, resolved through PATH at start-up). When PATH's `peaks` is this
 * very file, run it by that name; otherwise the path itself, which the
 * runtime then refuses with a clear NotCapable.
 */
function compiledSelf(): string {
  const exec = Deno.execPath();
  try {
    const windows = Deno.build.os === "windows";
    const own = Deno.realPathSync(exec);
    for (const dir of (Deno.env.get("PATH") ?? "").split(windows ? ";" : ":")) {
      if (!dir) continue;
      const candidate = `${dir}${windows ? "\\" : "/"}peaks${windows ? ".exe" : ""}`;
      const same = (() => {
        try {
          return Deno.realPathSync(candidate) === own;
        } catch {
          return false;
        }
      })();
      if (same) return "peaks";
    }
  } catch {
    // PATH unreadable: fall back to the path itself.
  }
  return exec;
}

function selfCommand(): string[] {
  if (isCompiled()) return [compiledSelf()];
  const entry = localPath(new URL("../../peaks.ts", import.meta.url));
  const config = localPath(new URL("../../deno.json", import.meta.url));
  return ["deno", "run", "-q", "-P=peaks", V8_FLAGS, "--config", config, entry];
}

/**
 * The permission set lets the program run itself under both names (`deno`
 * in development, `peaks` when compiled); each process drops the one it
 * does not use, so a compiled binary can never start a Deno found on PATH.
 */
function dropForeignSelf(): void {
  try {
    Deno.permissions.revokeSync({ name: "run", command: isCompiled() ? "deno" : "peaks" });
  } catch {
    // Not granted in the first place.
  }
}

/** The working directory, or "" when it was removed under us (reported by resolveProject). */
function currentDir(): string {
  try {
    return Deno.cwd();
  } catch {
    return "";
  }
}

export function processCtx(): Ctx {
  dropForeignSelf();
  return {
    cwd: currentDir(),
    env,
    now: () => new Date(),
    stdout: output(Deno.stdout),
    stderr: output(Deno.stderr),
    stdin: input(),
    global: { json: false, pretty: false },
    selfCommand,
  };
}
