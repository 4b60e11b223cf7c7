import { assertEquals } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir } from "../../support/temp.ts";
import { join } from "../../../lib/infra/std.ts";

Deno.test("workspace init never rewrites through a symlinked .peaks/.gitignore; the repair it offers works", async () => {
  await using dir = await tempDir();
  await using outside = await tempDir();
  const target = join(outside.path, "elsewhere.txt");
  await Deno.writeTextFile(target, "not peaks'\n");
  await Deno.mkdir(join(dir.path, ".peaks"));
  await Deno.symlink(target, join(dir.path, ".peaks", ".gitignore"));
  const refused = await runPeaks(["workspace", "init", "--json"], { cwd: dir.path });
  assertEquals(refused.json.code, "NOT_A_REGULAR_FILE", refused.stdout);
  assertEquals(await Deno.readTextFile(target), "not peaks'\n");
  // The repair is a shell command line, run as written.
  const repair = await new Deno.Command("sh", {
    args: ["-c", refused.json.nextActions[0]],
    cwd: dir.path,
  }).output();
  assertEquals(repair.code, 0);
  const again = await runPeaks(["workspace", "init", "--json"], { cwd: dir.path });
  assertEquals(again.code, 0, again.stdout);
  assertEquals(await Deno.readTextFile(target), "not peaks'\n");
});
