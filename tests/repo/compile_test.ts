/**
 * release/compile.ts around the real `deno compile`, without the network:
 * the runtime download is sent to a loopback proxy that hangs up, and the
 * offline build gets its runtime from a pre-filled DENO_DIR.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { zip } from "../../release/archive.ts";
import { TARGETS } from "../../release/targets.ts";
import { VERSION } from "../../lib/infra/command/build.ts";
import { HOST } from "../support/release.ts";
import { cacheDir, REPO } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";

const COMPILE = join(REPO, "release", "compile.ts");

/** A DENO_DIR that shares the npm packages but holds no runtime downloads. */
async function freshDenoDir(root: string): Promise<string> {
  const dir = join(root, "deno-dir");
  await Deno.mkdir(dir);
  await Deno.symlink(join(await cacheDir(), "npm"), join(dir, "npm"));
  return dir;
}

/** A proxy address that accepts connections and closes them at once. */
function hangUpProxy(): { url: string; close: () => void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  (async () => {
    for await (const conn of listener) conn.close();
  })().catch(() => {});
  return { url: `http://127.0.0.1:${listener.addr.port}`, close: () => listener.close() };
}

/** What Windows processes need to start at all. */
function passThrough(): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const name of ["SystemRoot", "TEMP", "TMP"]) {
    const value = Deno.env.get(name);
    if (value) vars[name] = value;
  }
  return vars;
}

async function compile(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", "--config", join(REPO, "deno.json"), COMPILE, ...args],
    env: { ...passThrough(), PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

function assertNoTrace(stderr: string): void {
  assertEquals(stderr.includes("Stack backtrace"), false, stderr);
  assertEquals(/^\s+at /m.test(stderr), false, stderr);
}

Deno.test({
  name: "compile without a reachable runtime explains the download and the offline build",
  ignore: HOST === undefined || Deno.build.os === "windows",
  async fn() {
    await using dir = await tempDir();
    const denoDir = await freshDenoDir(dir.path);
    const proxy = hangUpProxy();
    try {
      const result = await compile(["--all", "--out", join(dir.path, "dist")], {
        HOME: dir.path,
        DENO_DIR: denoDir,
        HTTPS_PROXY: proxy.url,
        HTTP_PROXY: proxy.url,
      });
      assertEquals(result.code, 1, result.stderr);
      assertNoTrace(result.stderr);
      const runtime = join(denoDir, "dl", "release", `v${Deno.version.deno}`);
      assert(
        result.stderr.startsWith(
          `error: deno compile could not get Deno's runtime for ${TARGETS[0]}.\n`,
        ),
        result.stderr,
      );
      assertStringIncludes(
        result.stderr,
        `https://dl.deno.land/release/v${Deno.version.deno}/denort-${TARGETS[0]}.zip`,
      );
      for (const target of ["x86_64-apple-darwin", "aarch64-pc-windows-msvc"]) {
        assertStringIncludes(result.stderr, join(runtime, `denort-${target}.zip`));
      }
      assertStringIncludes(result.stderr, "DENORT_BIN");
      assertStringIncludes(result.stderr, 'docs/distribution.md ("Building offline")');
    } finally {
      proxy.close();
    }
  },
});

Deno.test({
  name: "compile with a DENORT_BIN that does not exist says so, without a stack trace",
  ignore: HOST === undefined,
  async fn() {
    await using dir = await tempDir();
    const missing = join(dir.path, "no-denort");
    const result = await compile(["--host", "--out", join(dir.path, "dist")], {
      HOME: dir.path,
      DENO_DIR: await cacheDir(),
      DENORT_BIN: missing,
    });
    assertEquals(result.code, 1);
    assertNoTrace(result.stderr);
    assertStringIncludes(result.stderr, `error: deno compile could not use DENORT_BIN=${missing}`);
  },
});

Deno.test({
  name: "compile builds offline from a pre-filled DENO_DIR, with the peaks permissions and skills",
  // deno compile checks the runtime is an ELF for Linux targets; /bin/true stands in for denort.
  ignore: HOST !== "x86_64-unknown-linux-gnu" && HOST !== "aarch64-unknown-linux-gnu",
  async fn() {
    await using dir = await tempDir();
    const denoDir = await freshDenoDir(dir.path);
    const runtimeDir = join(denoDir, "dl", "release", `v${Deno.version.deno}`);
    await Deno.mkdir(runtimeDir, { recursive: true });
    const runtime = await zip([{
      path: "denort",
      data: await Deno.readFile("/bin/true"),
      mode: 0o755,
    }], new Date());
    await Deno.writeFile(join(runtimeDir, `denort-${HOST}.zip`), runtime);
    const proxy = hangUpProxy();
    try {
      const out = join(dir.path, "dist");
      const result = await compile(["--host", "--no-package", "--out", out], {
        HOME: dir.path,
        DENO_DIR: denoDir,
        HTTPS_PROXY: proxy.url,
      });
      assertEquals(result.code, 0, result.stderr);
      const binary = join(out, "build", HOST!, "peaks");
      assertEquals(result.stdout, `compiling peaks ${VERSION} for ${HOST}\nwrote ${binary}\n`);
      const text = new TextDecoder("latin1").decode(await Deno.readFile(binary));
      const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
      assertStringIncludes(text, `"allow_run":${JSON.stringify(config.permissions.peaks.run)}`);
      assertStringIncludes(text, `"allow_env":${JSON.stringify(config.permissions.peaks.env)}`);
      assertStringIncludes(text, `"allow_net":${JSON.stringify(config.permissions.peaks.net)}`);
      // Remote code can never be imported at run time: only a port-0 host is listed.
      assertStringIncludes(
        text,
        `"allow_import":${JSON.stringify(config.permissions.peaks.import)}`,
      );
      assertStringIncludes(text, `"prompt":false`);
      assertStringIncludes(text, `{"Dir":{"n":"skills"`);
    } finally {
      proxy.close();
    }
  },
});

Deno.test("compile refuses unknown targets and a tag that disagrees with deno.json", async () => {
  await using dir = await tempDir();
  const env = { HOME: dir.path, DENO_DIR: await cacheDir() };
  const unknown = await compile(["--target", "sparc-sun-solaris"], env);
  assertEquals(unknown.code, 2);
  assertStringIncludes(unknown.stderr, 'error: unknown target "sparc-sun-solaris"');
  const tag = await compile(["--host", "--expect-version", "v9.9.9"], env);
  assertEquals(tag.code, 1);
  assertStringIncludes(tag.stderr, `the tag asks for 9.9.9 but deno.json says ${VERSION}`);
  assertNoTrace(unknown.stderr + tag.stderr);
});
