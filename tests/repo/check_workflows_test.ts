/**
 * The workflow check in `deno task check` (.ci/check_workflows.ts): the pinned validator accepts
 * the repository's workflows and refuses a broken one, naming the file and the finding.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { needs } from "../support/tools.ts";

const npx = await needs(Deno.build.os === "windows" ? "npx.cmd" : "npx");
const SCRIPT = join(REPO, ".ci", "check_workflows.ts");

/** A scratch HOME and npm cache for npx, shared by this file's runs (the validator is fetched once). */
let scratch: string | undefined;
async function npxEnv(): Promise<Record<string, string>> {
  scratch ??= await Deno.makeTempDir({ prefix: "peaks-workflows-" });
  const env: Record<string, string> = {
    HOME: scratch,
    PATH: Deno.env.get("PATH") ?? "",
    npm_config_cache: join(scratch, "npm"),
  };
  for (const name of ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SystemRoot", "TEMP", "TMP"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return env;
}
globalThis.addEventListener("unload", () => {
  if (scratch) Deno.removeSync(scratch, { recursive: true });
});

async function check(files: string[], readable: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      `--allow-read=${readable}`,
      "--allow-run=npx,npx.cmd",
      SCRIPT,
      ...files,
    ],
    cwd: REPO,
    env: await npxEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test({
  name: `the repository's workflows pass the pinned workflow validator${npx.note}`,
  ignore: npx.ignore,
  async fn() {
    const result = await check([], ".github");
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, "workflow files valid (@action-validator/cli@0.6.0)");
  },
});

Deno.test({
  name: `a workflow with a misspelt key fails the check, naming the file${npx.note}`,
  ignore: npx.ignore,
  async fn() {
    await using dir = await tempDir();
    const ci = await Deno.readTextFile(join(REPO, ".github", "workflows", "ci.yml"));
    assert(ci.includes("    runs-on: ${{ matrix.os }}\n"));
    const broken = join(dir.path, "ci.yml");
    await Deno.writeTextFile(
      broken,
      ci.replace("    runs-on: ${{ matrix.os }}\n", "    run-on: x\n"),
    );
    const result = await check([broken], dir.path);
    assertEquals(result.code, 1, result.stdout);
    assertStringIncludes(result.stderr, `${broken}: not a valid workflow`);
    assertStringIncludes(result.stderr, "run-on");
  },
});

Deno.test("deno task check type-checks quietly and ends with the workflow check", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
  const steps = (config.tasks.check as string).split(" && ");
  const typeCheck = (steps.find((step) => step.startsWith("deno check ")) ?? "").split(" ");
  assert(typeCheck.includes("-q"), `deno check without -q: ${typeCheck.join(" ")}`);
  for (const dir of ["lib/", "tests/", "demo/", "release/", ".ci/"]) {
    assert(typeCheck.includes(dir), `deno check skips ${dir}`);
  }
  assertStringIncludes(steps.at(-1)!, ".ci/check_workflows.ts");
});
