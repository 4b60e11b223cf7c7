import { assert, assertEquals } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { VERSION } from "../../lib/infra/command/build.ts";
import { expandAlias } from "../../lib/cli/main.ts";
import { ALIASES, COMMANDS, GROUPS } from "../../lib/cli/table.ts";
import { buildCompletionModel } from "../../lib/cli/completions/model.ts";
import { topHelp } from "../../lib/cli/help.ts";

Deno.test("peaks version, peaks -v and peaks help answer as --version and --help", async () => {
  await using dir = await tempDir();
  for (const word of ["version", "-v"]) {
    const human = await runPeaks([word], { cwd: dir.path });
    assertEquals(human.code, 0, human.stderr);
    assertEquals(human.stdout, `peaks ${VERSION}\n`);
    const json = await runPeaks([word, "--json"], { cwd: dir.path });
    assertEquals(json.json.data.version, VERSION);
  }
  const help = await runPeaks(["help"], { cwd: dir.path });
  assertEquals(help.code, 0, help.stderr);
  assertEquals(help.stdout, (await runPeaks(["--help"], { cwd: dir.path })).stdout);
  const one = await runPeaks(["help", "session", "list"], { cwd: dir.path });
  assertEquals(one.code, 0, one.stderr);
  assertEquals(
    one.stdout,
    (await runPeaks(["session", "list", "--help"], { cwd: dir.path })).stdout,
  );
});

Deno.test("an alias counts only in the command position", () => {
  assertEquals(expandAlias(["--json", "version"]), ["--json", "--version"]);
  assertEquals(expandAlias(["--project", "help", "-v"]), ["--project", "help", "--version"]);
  assertEquals(expandAlias(["help", "doctor"]), ["doctor", "--help"]);
  assertEquals(expandAlias(["session", "title", "help"]), ["session", "title", "help"]);
  assertEquals(expandAlias(["doctor", "-v"]), ["doctor", "-v"]);
});

Deno.test("help, completions and the reference list the aliases from the table", async () => {
  const model = await buildCompletionModel(COMMANDS, GROUPS, ALIASES);
  const top = model.top.map((t) => t.word);
  assert(top.includes("help") && top.includes("version"), top.join(" "));
  for (const alias of ALIASES) assert(topHelp().includes(`  ${alias.word} `), alias.word);
  const reference = await Deno.readTextFile(new URL("../../docs/commands.md", import.meta.url));
  for (const alias of ALIASES) assert(reference.includes(`\`peaks ${alias.word}\``), alias.word);
});
