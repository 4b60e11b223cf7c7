/** The demo's start: NO_COLOR is honoured and a missing vendor CLI stops it before anything runs. */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { cacheDir, REPO } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { onPath, useColor } from "../../demo/report.ts";

Deno.test("the demo paints only on a terminal without NO_COLOR", () => {
  assertEquals(useColor(true, undefined), true);
  assertEquals(useColor(true, ""), true);
  assertEquals(useColor(true, "1"), false);
  assertEquals(useColor(false, undefined), false);
});

Deno.test("onPath finds an executable on a PATH value and nothing else", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "tool"), "#!/bin/sh\n");
  await Deno.writeTextFile(join(dir.path, "plain"), "text\n");
  if (Deno.build.os !== "windows") await Deno.chmod(join(dir.path, "tool"), 0o755);
  const windows = Deno.build.os === "windows";
  assert(await onPath("tool", `/nowhere:${dir.path}`, windows) || windows);
  assertEquals(await onPath("absent", dir.path, windows), undefined);
  if (!windows) assertEquals(await onPath("plain", dir.path), undefined);
});

Deno.test("--vendor with its CLI missing stops before the demo copies or runs anything", async () => {
  await using dir = await tempDir();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "-A",
      "--config",
      join(REPO, "deno.json"),
      join(REPO, "demo", "run.ts"),
      "--vendor",
      "no-such-agent-cli",
    ],
    cwd: dir.path,
    env: {
      HOME: join(dir.path, "home"),
      PATH: dir.path,
      DENO_DIR: await cacheDir(),
      TMPDIR: dir.path,
    },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 2, stderr);
  assertStringIncludes(
    stderr,
    "--vendor no-such-agent-cli needs the no-such-agent-cli CLI on PATH",
  );
  assertEquals(new TextDecoder().decode(out.stdout), "");
  assertEquals([...Deno.readDirSync(dir.path)].map((e) => e.name), [], "no demo folder was made");
});
