/**
 * The run permission: git, the five vendor CLIs and the program itself,
 * nothing else. Both self names are in the set; each process drops the one
 * it does not use at start-up (a Deno process keeps `deno`, a compiled
 * binary keeps `peaks`).
 */
import { assertEquals } from "@std/assert";
import { CONFIG, scriptArgs } from "../support/cli.ts";
import { fakeVendors } from "../support/detached.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { join } from "../../lib/infra/std.ts";

Deno.test("the permission set runs only git, the vendors and peaks itself", async () => {
  const config = JSON.parse(await Deno.readTextFile(CONFIG));
  assertEquals(config.permissions.peaks.run, [
    "git",
    "claude",
    "codex",
    "copilot",
    "gemini",
    "opencode",
    "peaks",
    "deno",
  ]);
});

Deno.test("under deno run the process keeps `deno`, drops `peaks`, and cannot start anything else", async () => {
  await using dir = await tempDir();
  const bin = await fakeVendors(dir.path, { claude: "ok", peaks: "ok", sh: "ok" });
  const probe = join(dir.path, "probe.ts");
  await writeText(
    probe,
    `import { processCtx } from ${
      JSON.stringify(new URL("../../lib/cli/runtime.ts", import.meta.url).href)
    };
const before = Deno.permissions.querySync({ name: "run", command: "peaks" }).state;
const ctx = processCtx();
const state = (command: string) => Deno.permissions.querySync({ name: "run", command }).state;
let other = "started";
try {
  await new Deno.Command(${
      JSON.stringify(join(bin, "sh"))
    }, { stdin: "null", stdout: "null" }).output();
} catch (error) {
  other = (error as Error).name;
}
console.log(JSON.stringify({
  before, peaks: state("peaks"), deno: state("deno"), git: state("git"), claude: state("claude"),
  self: ctx.selfCommand()[0], other,
}));
`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: scriptArgs(probe),
    env: { PATH: `${bin}:${Deno.env.get("PATH") ?? ""}`, HOME: dir.path },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  const seen = JSON.parse(text);
  assertEquals(seen.before, "granted");
  assertEquals(seen.peaks === "granted", false);
  assertEquals([seen.deno, seen.git, seen.claude], ["granted", "granted", "granted"]);
  assertEquals(seen.self, "deno");
  assertEquals(seen.other, "NotCapable");
});
