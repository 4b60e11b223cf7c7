import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";
import { checkDocs, commandMentions } from "../support/skill_contract.ts";

/** Phrases the pages quote as text, not as commands to run. */
const QUOTED = [
  "peaks progress", // the 1.x rule file's wording that upgrade --detect-1x looks for
];

Deno.test("every peaks command line in the README and docs/ parses against the command table", async () => {
  const files = [{ file: "README.md", text: await Deno.readTextFile(join(REPO, "README.md")) }];
  for (const entry of Deno.readDirSync(join(REPO, "docs"))) {
    // The command reference is generated from the table (tests/repo/reference_test.ts).
    if (!entry.name.endsWith(".md") || entry.name === "commands.md") continue;
    files.push({
      file: `docs/${entry.name}`,
      text: await Deno.readTextFile(join(REPO, "docs", entry.name)),
    });
  }
  const mentions = files.reduce((n, f) => n + commandMentions(f.file, f.text).length, 0);
  assert(mentions > 50, `only ${mentions} commands found: the extractor is broken`);
  assertEquals(await checkDocs(files, QUOTED), []);
});
