/**
 * .ci/run's quick-start steps on a scratch copy of the CI scripts: the README's commands are read
 * from the README at run time and run through the real npx with no deno on PATH, so a README whose
 * command no longer works, or that lost it, fails CI.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";
import { which } from "../support/release.ts";
import { tempDir } from "../support/temp.ts";
import { needs } from "../support/tools.ts";

const PINNED = /DENO_VERSION="([^"]+)"/.exec(
  await Deno.readTextFile(join(REPO, ".ci", "run")),
)![1];
const npx = await which("npx");
const bash = await which("bash");
const missing = Deno.build.os === "windows"
  ? " (ignored: .ci/run is a bash script for Linux and macOS)"
  : !npx
  ? " (ignored: npx is not on PATH)"
  : !bash
  ? " (ignored: bash is not on PATH)"
  : Deno.version.deno !== PINNED
  ? ` (ignored: this Deno is ${Deno.version.deno}, .ci/run pins ${PINNED})`
  : "";

/** Tasks of the scratch project: what the README's npx commands end up running. */
const TASKS = {
  demo: "echo the demo ran",
  test: "echo 'ok | 7 passed | 0 failed (1s)'",
};

function readme(demo: string, test: string): string {
  return `# scratch\n\n## Quick start\n\n\`\`\`sh\n${demo}\n${test}\n\`\`\`\n\n## Next\n`;
}

/** A scratch clone holding .ci/, a deno.json with TASKS and the given README; runs .ci/run. */
async function ciRun(
  dir: string,
  readmeText: string,
  steps: string[],
  tasks: Record<string, string> = TASKS,
) {
  const root = join(dir, "clone");
  await Deno.mkdir(join(root, ".ci"), { recursive: true });
  for (const file of ["run", "quickstart.ts"]) {
    await Deno.copyFile(join(REPO, ".ci", file), join(root, ".ci", file));
  }
  await Deno.writeTextFile(join(root, "deno.json"), JSON.stringify({ tasks }));
  await Deno.writeTextFile(join(root, "README.md"), readmeText);
  // The pinned deno for .ci/run itself, from a folder the run must hide from the README's commands.
  const denoBin = join(dir, "deno-bin");
  await Deno.mkdir(denoBin, { recursive: true });
  await Deno.symlink(Deno.execPath(), join(denoBin, "deno"));
  const home = join(dir, "home");
  await Deno.mkdir(home, { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    PATH: `${denoBin}:${Deno.env.get("PATH") ?? ""}`,
    TMPDIR: dir,
    // One npm cache for the file's runs: npx fetches the pinned deno at most once.
    npm_config_cache: join(await sharedCache(), "npm"),
    npm_config_update_notifier: "false",
  };
  for (const name of ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  const out = await new Deno.Command("bash", {
    args: [join(root, ".ci", "run"), ...steps],
    cwd: dir,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const lines = stdout.trimEnd().split("\n");
  return {
    code: out.code,
    stdout,
    stderr: new TextDecoder().decode(out.stderr),
    last: lines[lines.length - 1],
  };
}

let cache: string | undefined;
async function sharedCache(): Promise<string> {
  cache ??= await Deno.makeTempDir({ prefix: "peaks-ci-npm-" });
  return cache;
}

const GOOD_DEMO = `npx -y deno@${PINNED} task demo   # the demo`;
const GOOD_TEST = `npx -y deno@${PINNED} task test`;

Deno.test({
  name: `.ci/run runs the README's quick-start commands as written, with no deno on PATH${missing}`,
  ignore: missing !== "",
  async fn() {
    await using dir = await tempDir();
    const result = await ciRun(dir.path, readme(GOOD_DEMO, GOOD_TEST), ["demo", "test"]);
    assertEquals(result.code, 0, result.stdout + result.stderr);
    assertStringIncludes(result.stdout, `ci: $ npx -y deno@${PINNED} task demo    (from README.md`);
    assertStringIncludes(result.stdout, "the demo ran\n");
    assert(!result.stdout.includes("could not hide deno"), result.stdout);
    assertEquals(result.last, "7 passed, 0 failed");
  },
});

Deno.test({
  name: `.ci/run fails when the README's command no longer works${missing}`,
  ignore: missing !== "",
  async fn() {
    await using dir = await tempDir();
    const broken = await ciRun(
      dir.path,
      readme(`npx -y deno@${PINNED} task --config missing.json demo`, GOOD_TEST),
      ["demo", "test"],
    );
    assertEquals(broken.code, 1, broken.stdout);
    assertStringIncludes(broken.stdout, "ci: the README's demo command failed");
    assertEquals(broken.last, "7 passed, 1 failed");

    const failing = await ciRun(
      join(dir.path, "again"),
      readme(GOOD_DEMO, GOOD_TEST),
      ["test"],
      { ...TASKS, test: "echo 'FAILED | 5 passed | 2 failed (1s)' && exit 1" },
    );
    assertEquals(failing.code, 1, failing.stdout);
    assertEquals(failing.last, "5 passed, 2 failed");
  },
});

Deno.test({
  name: `.ci/run fails when the README lost its quick-start command${missing}`,
  ignore: missing !== "",
  async fn() {
    await using dir = await tempDir();
    for (const demo of ["deno task demo", `npx -y deno@${PINNED} task demoo`]) {
      const result = await ciRun(join(dir.path, demo.length.toString()), readme(demo, GOOD_TEST), [
        "demo",
        "test",
      ]);
      assertEquals(result.code, 1, result.stdout);
      assertStringIncludes(result.stderr, "exactly one npx command that runs the demo, found 0");
      assertStringIncludes(result.stdout, "ci: the README has no usable demo command");
      assertEquals(result.last, "7 passed, 1 failed");
    }
  },
});

Deno.test({
  name: `an unknown step name fails before anything runs${missing}`,
  ignore: missing !== "",
  async fn() {
    await using dir = await tempDir();
    const result = await ciRun(dir.path, readme(GOOD_DEMO, GOOD_TEST), ["nope"]);
    assertEquals(result.code, 1, result.stdout);
    assertStringIncludes(
      result.stdout,
      "no step named nope (steps: tools check audit demo test routes hosts pwsh)",
    );
    assertEquals(result.last, "0 passed, 1 failed");
  },
});

Deno.test({
  name: `.ci/run adds the counts of deno task test:pwsh to the totals${missing}`,
  ignore: missing !== "",
  async fn() {
    await using dir = await tempDir();
    const tasks = {
      ...TASKS,
      "test:pwsh": "echo 'Pester says hello' && echo '12 passed, 0 failed'",
    };
    const ok = await ciRun(dir.path, readme(GOOD_DEMO, GOOD_TEST), ["pwsh"], tasks);
    assertEquals(ok.code, 0, ok.stdout + ok.stderr);
    assertStringIncludes(ok.stdout, "ci: deno task test:pwsh\n");
    assertStringIncludes(ok.stdout, "Pester says hello\n");
    assertEquals(ok.last, "12 passed, 0 failed");

    const failing = await ciRun(join(dir.path, "again"), readme(GOOD_DEMO, GOOD_TEST), ["pwsh"], {
      ...tasks,
      "test:pwsh": "echo '10 passed, 2 failed' && exit 1",
    });
    assertEquals(failing.code, 1, failing.stdout);
    assertEquals(failing.last, "10 passed, 2 failed");

    const silent = await ciRun(join(dir.path, "silent"), readme(GOOD_DEMO, GOOD_TEST), ["pwsh"], {
      ...tasks,
      "test:pwsh": "exit 1",
    });
    assertEquals(silent.code, 1, silent.stdout);
    assertStringIncludes(silent.stdout, "ci: deno task test:pwsh printed no test summary");
    assertEquals(silent.last, "0 passed, 1 failed");
  },
});

const shellcheck = await needs("shellcheck");
Deno.test({
  name: `.ci/run passes shellcheck${shellcheck.note}`,
  ignore: shellcheck.ignore,
  async fn() {
    const out = await new Deno.Command("shellcheck", {
      args: [join(REPO, ".ci", "run")],
      stdout: "piped",
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stdout));
  },
});

globalThis.addEventListener("unload", () => {
  if (cache) Deno.removeSync(cache, { recursive: true });
});
