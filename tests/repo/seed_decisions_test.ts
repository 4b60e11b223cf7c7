/** Seed steps peaks answers in writing: doc-source PRDs in the skill, OpenSpec argued away in docs. */
import { assert, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";

Deno.test("peaks-prd says how to write a PRD from an exported document or screenshots", async () => {
  const skill = await Deno.readTextFile(join(REPO, "skills", "peaks-prd", "SKILL.md"));
  assertStringIncludes(skill, "## When the source is a document export or screenshots");
  for (const rule of ["Feishu/Lark", "prd/source/", "## Open questions", "personal data"]) {
    assertStringIncludes(skill, rule);
  }
});

Deno.test("docs/requests.md says why OpenSpec is not a step and where document sources go", async () => {
  const doc = await Deno.readTextFile(join(REPO, "docs", "requests.md"));
  assertStringIncludes(doc, "**OpenSpec is not a step.**");
  assertStringIncludes(doc, "**Document sources.**");
  assert(/Nothing in peaks reads or writes\s+`openspec\/`/.test(doc));
});
