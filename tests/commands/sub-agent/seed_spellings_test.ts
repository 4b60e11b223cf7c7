/**
 * Lines the 1.x skills taught, run as written: each either works or says
 * what replaced it.
 */
import { assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir } from "../../support/temp.ts";
import { withOutputMode } from "../../../lib/infra/shell.ts";

Deno.test("cleanup --orphan is --orphans", async () => {
  await using dir = await tempDir();
  await runPeaks(["workspace", "init", "--json"], { cwd: dir.path });
  const one = await runPeaks(["sub-agent", "cleanup", "--orphan", "--json"], { cwd: dir.path });
  const both = await runPeaks(["sub-agent", "cleanup", "--orphans", "--json"], { cwd: dir.path });
  assertEquals(one.code, 0, one.stdout);
  assertEquals(Object.keys(one.json.data).sort(), Object.keys(both.json.data).sort());
  const kill = await runPeaks(["sub-agent", "cleanup", "--kill", "--json"], { cwd: dir.path });
  assertEquals(kill.json.code, "CONFLICTING_FLAGS");
});

Deno.test("dispatch --write-artifact without a role points at sub-agent artifact", async () => {
  await using dir = await tempDir();
  await runPeaks(["workspace", "init", "--json"], { cwd: dir.path });
  const r = await runPeaks(
    ["sub-agent", "dispatch", "--write-artifact", "ui/draft.md", "--json"],
    { cwd: dir.path },
  );
  assertEquals([r.code, r.json.code], [2, "MISSING_ARGUMENT"]);
  assertMatch(r.json.message, /peaks sub-agent artifact --record <record> --path <path>/);
  assertEquals(r.json.nextActions, ["peaks sub-agent artifact --help --json"]);
  const plain = await runPeaks(["sub-agent", "dispatch", "--json"], { cwd: dir.path });
  assertEquals(plain.json.nextActions, ["peaks sub-agent dispatch --help --json"]);
});

Deno.test("nextActions keep --json when the caller asked for --pretty", async () => {
  assertEquals(
    withOutputMode("peaks session info", { json: true, pretty: true }),
    "peaks session info --json --pretty",
  );
  await using dir = await tempDir();
  const init = await runPeaks(["workspace", "init", "--json", "--pretty"], { cwd: dir.path });
  assertEquals(init.code, 0);
  for (const action of init.json.nextActions as string[]) {
    assertMatch(action, / --json --pretty$/);
  }
});
