import { assertEquals } from "@std/assert";
import { cacheDir, REPO, scriptArgs } from "../../support/cli.ts";
import { tempDir } from "../../support/temp.ts";
import { join } from "../../../lib/infra/std.ts";

const WRITERS = 50;

Deno.test("50 concurrent processes (half rehearsing a pure update) increment one file exactly 50 times; readers never see invalid JSON", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "counter.json");
  const script = join(REPO, "tests", "support", "increment.ts");
  const env = { PATH: Deno.env.get("PATH") ?? "", DENO_DIR: await cacheDir(), HOME: dir.path };

  let done = false;
  let reads = 0;
  let invalid = 0;
  const reader = (async () => {
    while (!done) {
      try {
        const text = await Deno.readTextFile(path);
        reads++;
        const value = JSON.parse(text);
        if (typeof value.count !== "number") invalid++;
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) invalid++;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();

  const results = await Promise.all(
    Array.from({ length: WRITERS }, (_, i) =>
      new Deno.Command(Deno.execPath(), {
        args: scriptArgs(script, [path, `w${i}`, i % 2 ? "pure" : "plain"]),
        env,
        clearEnv: true,
        stdout: "null",
        stderr: "piped",
      }).output()),
  );
  done = true;
  await reader;

  const failures = results.filter((r) => r.code !== 0).map((r) =>
    new TextDecoder().decode(r.stderr)
  );
  assertEquals(failures, []);
  const final = JSON.parse(await Deno.readTextFile(path));
  assertEquals(final.count, WRITERS);
  assertEquals(new Set(final.writers).size, WRITERS);
  assertEquals(invalid, 0, `invalid reads out of ${reads}`);
});
