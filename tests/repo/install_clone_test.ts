/**
 * The README's clone route: `deno task install:peaks` puts a `peaks` on PATH that runs the clone
 * with exactly the binary's permission set, it passes the binary's smoke test (release/smoke.ts)
 * from a scratch project, and `deno uninstall --global peaks` takes it away again.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes, assertThrows } from "@std/assert";
import { dirname, join } from "../../lib/infra/std.ts";
import { ReleaseError } from "../../release/errors.ts";
import {
  installArgs,
  pathSteps,
  peaksPermissions,
  permissionFlags,
} from "../../release/install_clone.ts";
import { cacheDir, REPO } from "../support/cli.ts";
import { exists, tempDir, writeText } from "../support/temp.ts";

const windows = Deno.build.os === "windows";

Deno.test("a permission set becomes the --allow flags that grant exactly it", () => {
  assertEquals(
    permissionFlags({
      read: true,
      write: false,
      env: ["HOME", "PEAKS_*"],
      net: ["127.0.0.1", "[::1]"],
      run: ["git"],
      import: ["localhost:0"],
    }),
    [
      "--allow-read",
      "--allow-env=HOME,PEAKS_*",
      "--allow-net=127.0.0.1,[::1]",
      "--allow-run=git",
      "--allow-import=localhost:0",
    ],
  );
  assertThrows(() => permissionFlags({ read: true, hrtime: true }), ReleaseError, "hrtime");
  assertThrows(() => permissionFlags({ env: "HOME" }), ReleaseError, '"env"');
});

Deno.test("deno.json's set maps one flag per kind it grants, and the install adds --no-prompt", async () => {
  const set = await peaksPermissions();
  const flags = permissionFlags(set);
  const granted = Object.entries(set).filter(([, value]) => value !== false);
  assertEquals(flags.length, granted.length);
  for (const [kind, value] of granted) {
    const flag = flags.find((f) => f === `--allow-${kind}` || f.startsWith(`--allow-${kind}=`));
    assertEquals(flag, value === true ? `--allow-${kind}` : `--allow-${kind}=${value}`);
  }
  const args = await installArgs({ root: "/r" });
  for (const word of ["--global", "--force", "--no-prompt", "--root"]) {
    assert(args.includes(word), word);
  }
  assert(!args.includes("--quiet"), "Deno's own PATH hint stays visible");
  assert(
    !args.some((a) => a === "-A" || a === "--allow-all" || a.startsWith("-P")),
    args.join(" "),
  );
  assertEquals(args.slice(-3), ["--config", join(REPO, "deno.json"), join(REPO, "peaks.ts")]);
});

Deno.test("the install names the exact PATH step and a lasting deno when a new shell lacks them", () => {
  const deno = (dir: string) => dir === "/usr/local/bin";
  assertEquals(pathSteps("/h/.deno/bin", "/h/.deno/bin/:/usr/local/bin:/usr/bin", deno, false), []);
  const [bin, noDeno] = pathSteps(
    "/h/.deno/bin",
    "/h/.npm/_npx/1a2b/node_modules/.bin:/usr/bin",
    (dir) => dir.includes("_npx"),
    false,
  );
  assertEquals(
    bin,
    '/h/.deno/bin is not on PATH; add it with: export PATH="/h/.deno/bin:$PATH"' +
      " (and the same line in ~/.bashrc, ~/.zshrc or your shell's profile for good)",
  );
  assertStringIncludes(noDeno, "npm install -g deno@2.9.6");
  const [win] = pathSteps("C:\\u\\.deno\\bin", "C:\\Windows", () => true, true);
  assertStringIncludes(win, '$env:Path = "C:\\u\\.deno\\bin;" + $env:Path');
});

async function run(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test({
  name: `deno task install:peaks from another folder: the smoke test passes, then it uninstalls${
    windows ? " (ignored: the installed script is a .cmd on Windows)" : ""
  }`,
  ignore: windows,
  async fn() {
    await using dir = await tempDir();
    const elsewhere = join(dir.path, "elsewhere");
    const home = join(dir.path, "home");
    await Deno.mkdir(elsewhere);
    await Deno.mkdir(home);
    const env: Record<string, string> = {
      HOME: home,
      // `deno` on PATH is the one running these tests; the installed script runs it too.
      PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`,
      DENO_DIR: await cacheDir(),
      NO_COLOR: "1",
    };
    // `deno install --global` links the clone as a package and looks up the optional peers of
    // headroom-ai on the npm registry, as a user's install does: pass on how to reach it.
    for (
      const name of ["NODE_EXTRA_CA_CERTS", "DENO_CERT", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"]
    ) {
      const value = Deno.env.get(name);
      if (value) env[name] = value;
    }
    const root = join(dir.path, "root");

    const install = await run(
      [
        Deno.execPath(),
        "task",
        "--config",
        join(REPO, "deno.json"),
        "install:peaks",
        "--root",
        "root",
      ],
      elsewhere,
      env,
    );
    assertEquals(install.code, 0, install.stderr);
    assertStringIncludes(
      install.stdout,
      `Remove it with: deno uninstall --global peaks --root ${join(elsewhere, "root")}`,
    );
    const installedRoot = join(elsewhere, "root");
    assertStringIncludes(
      install.stdout,
      `add it with: export PATH="${join(installedRoot, "bin")}:$PATH"`,
    );
    assertEquals(
      install.stdout.trimEnd().split("\n").at(-1),
      "Then, in a new shell: peaks --version",
    );
    const peaks = join(installedRoot, "bin", "peaks");

    // The script runs the clone with the permission set written out, and nothing more.
    const script = await Deno.readTextFile(peaks);
    const exec = script.split("\n").find((line) => line.startsWith("exec deno run "))!;
    for (const flag of [...permissionFlags(await peaksPermissions()), "--no-prompt"]) {
      assert(exec.includes(flag) || exec.includes(`'${flag}'`), `${flag} missing: ${exec}`);
    }
    assertMatch(exec, /'file:\/\/[^']*\/peaks\.ts' "\$@"$/);
    assert(!/--allow-all|\s-A\s|--allow-sys|--allow-ffi/.test(exec), exec);

    const smoke = await run(
      [
        Deno.execPath(),
        "run",
        "-q",
        "-A",
        "--config",
        join(REPO, "deno.json"),
        join(REPO, "release", "smoke.ts"),
        "--binary",
        peaks,
        "--skills",
        join(REPO, "skills"),
      ],
      elsewhere,
      env,
    );
    assertEquals(smoke.code, 0, smoke.stdout + smoke.stderr);
    assertStringIncludes(smoke.stdout, "ok  workspace init");
    assertStringIncludes(smoke.stdout, "ok  sub-agent finalize");
    assertEquals(smoke.stdout.trimEnd().split("\n").at(-1), "smoke test passed");

    // Like the binary: a non-loopback address is refused by the set, with no prompt.
    await writeText(join(elsewhere, "prompt.md"), "f".repeat(2_000));
    const refused = await run(
      [
        peaks,
        "context",
        "check",
        "--prompt-file",
        "prompt.md",
        "--use-headroom",
        "--ide",
        "claude-code",
        "--json",
      ],
      elsewhere,
      { ...env, HEADROOM_BASE_URL: "http://192.0.2.1:8787" },
    );
    assertEquals(refused.code, 0, refused.stderr);
    assertMatch(JSON.parse(refused.stdout).warnings[0].reason, /192\.0\.2\.1:8787.*NotCapable/);

    const uninstall = await run(
      [Deno.execPath(), "uninstall", "--global", "--root", installedRoot, "peaks"],
      elsewhere,
      env,
    );
    assertEquals(uninstall.code, 0, uninstall.stderr);
    assertEquals(await exists(peaks), false);
    assertEquals(await exists(join(installedRoot, "bin", ".peaks")), false);
    assertEquals(await exists(root), false, "a relative --root is taken from where the task ran");
  },
});
