import { assert, assertEquals } from "@std/assert";
import { gatherFacts } from "../../lib/scan/facts.ts";
import { scanProject } from "../../lib/scan/scan.ts";
import { extractConventions, TO_COMPLETE } from "../../lib/scan/conventions.ts";
import {
  EXISTING_BEGIN,
  EXISTING_END,
  mergeDocument,
  readConventionSections,
  renderDocument,
} from "../../lib/scan/existing_system_doc.ts";
import { copyFixture } from "../support/fixtures.ts";
import { tempDir } from "../support/temp.ts";

const NOW = new Date("2026-11-29T12:00:00Z");

Deno.test("conventions of the legacy fixture: naming, layout, service layer, hooks, state", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("legacy-antd-umi", dir.path);
  const c = await extractConventions(await gatherFacts(root));
  const has = (lines: string[], text: string) =>
    assert(lines.some((l) => l.includes(text)), `no line with ${text} in:\n${lines.join("\n")}`);
  has(c.naming, "one PascalCase folder per component");
  has(c.naming, "`src/hooks/useTable.ts`");
  has(c.naming, "`__tests__/`");
  has(c.directory, "`src/services/`: API calls");
  has(c.directory, "`@/` alias");
  has(c.serviceLayer, "`queryUsers` (src/services/user.ts)");
  has(c.serviceLayer, "`src/utils/request.ts`");
  has(c.serviceLayer, "umi-request");
  has(c.hooks, "`useTable` (src/hooks/useTable.ts)");
  has(c.hooks, "2 files with class components");
  has(c.state, "`user` (src/models/user.ts)");
  has(c.styling, "`index.less` next to it");
  for (const lines of Object.values(c) as string[][]) {
    assert(!lines.some((l) => l.includes(TO_COMPLETE)), "every section was found");
  }
});

Deno.test("sections with nothing found are left TO COMPLETE", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/main.py`, "print(1)\n");
  const c = await extractConventions(await gatherFacts(dir.path));
  assert(c.serviceLayer[0].startsWith(TO_COMPLETE));
  assert(c.hooks[0].startsWith(TO_COMPLETE));
});

Deno.test("a refresh rewrites only the marked part; hand-written files are left alone", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("legacy-antd-umi", dir.path);
  const { result, facts } = await scanProject(root, NOW);
  const c = await extractConventions(facts);
  const first = renderDocument(c, result, 17);
  const completed = first.replace(
    /- TO COMPLETE: how failed requests[^\n]*/,
    "- Failed requests show an antd notification from src/utils/request.ts.",
  ) + "\nNotes from the team.\n";
  const changed = { ...c, naming: ["Components: renamed for the test."] };
  const merged = mergeDocument(completed, changed, result, 17);
  assertEquals(merged.kind, "refreshed");
  if (merged.kind !== "refreshed") return;
  const before = (text: string) => text.slice(0, text.indexOf(EXISTING_BEGIN));
  const after = (text: string) => text.slice(text.indexOf(EXISTING_END));
  assertEquals(before(merged.text), before(completed));
  assertEquals(after(merged.text), after(completed));
  assert(after(merged.text).includes("Failed requests show an antd notification"));
  assert(merged.text.includes("Components: renamed for the test."));
  assertEquals(mergeDocument(merged.text, changed, result, 17).kind, "unchanged");
  assertEquals(mergeDocument("# My notes\n", c, result, 17).kind, "review-only");

  const sections = readConventionSections(merged.text);
  const titles = sections.map((s) => s.title);
  assert(titles.includes("Error handling"), "a completed heading becomes a convention");
  assert(!titles.includes("Permissions and route guards"), "TO COMPLETE headings are skipped");
  assert(!titles.includes("To complete"));
  assert(sections.every((s) => s.lines.every((l) => !l.includes(TO_COMPLETE))));
});
