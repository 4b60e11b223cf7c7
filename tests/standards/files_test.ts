import { assert, assertEquals } from "@std/assert";
import { checkStandardsBlock, STANDARDS_BEGIN, STANDARDS_END } from "../../lib/standards/block.ts";
import {
  classifyBlock,
  planMarkdownTarget,
  planOwnedFile,
  renderBlock,
} from "../../lib/standards/files.ts";
import { renderBlockBody } from "../../lib/standards/render.ts";
import { scanProject } from "../../lib/scan/scan.ts";
import { copyFixture, FIXTURE_NAMES } from "../support/fixtures.ts";
import { tempDir } from "../support/temp.ts";

const NOW = new Date("2026-11-29T12:00:00Z");
const BODY = "## Stack\n\n- Language: TypeScript";

Deno.test("a missing file is created with the block; a user file gets it appended", async () => {
  const created = await planMarkdownTarget(undefined, BODY, true);
  assertEquals(created.kind === "write" && created.action, "create");
  const user = "# Notes\n\nKeep PRs small.";
  const appended = await planMarkdownTarget(user, BODY, false);
  assert(appended.kind === "write");
  if (appended.kind !== "write") return;
  assertEquals(appended.action, "append");
  assert(appended.text.startsWith(`${user}\n\n${STANDARDS_BEGIN}`));
  assert(appended.text.endsWith(`${STANDARDS_END}\n`));
  assertEquals((await classifyBlock(appended.text)).kind, "peaks");
  assertEquals(await planMarkdownTarget(appended.text, BODY, true), { kind: "up-to-date" });
});

Deno.test("a refresh keeps every byte outside the block, CRLF files included", async () => {
  const withBlock = `# Team rules\r\n\r\n${await renderBlock(
    BODY,
    "\r\n",
  )}\r\nAfter the block.\r\n`;
  const plan = await planMarkdownTarget(withBlock, `${BODY}\n- Build tool: Vite 5`, true);
  assert(plan.kind === "write");
  if (plan.kind !== "write") return;
  assertEquals(plan.action, "refresh");
  const start = plan.text.indexOf(STANDARDS_BEGIN);
  const end = plan.text.indexOf(STANDARDS_END) + STANDARDS_END.length;
  assertEquals(plan.text.slice(0, start), "# Team rules\r\n\r\n");
  assertEquals(plan.text.slice(end), "\r\nAfter the block.\r\n");
  assert(plan.text.includes("- Build tool: Vite 5\r\n"));
  assert(!/[^\r]\n/.test(plan.text), "line endings stay CRLF");
});

Deno.test("init keeps an existing peaks block; update refreshes it", async () => {
  const text = `${await renderBlock(BODY)}\n`;
  const next = `${BODY}\n- CSS: Less`;
  assertEquals((await planMarkdownTarget(text, next, false)).kind, "kept");
  assertEquals((await planMarkdownTarget(text, next, true)).kind, "write");
});

Deno.test("foreign blocks: no digest line, edited by hand, duplicated or dangling markers", async () => {
  const ours = await renderBlock(BODY);
  const cases = [
    `${STANDARDS_BEGIN}\n## Stack\n- antd\n${STANDARDS_END}\n`,
    ours.replace("TypeScript", "JavaScript"),
    `${ours}\n${ours}\n`,
    `intro\n${STANDARDS_BEGIN}\nno end\n`,
  ];
  for (const text of cases) {
    const state = await classifyBlock(text);
    assertEquals(state.kind, "foreign", text);
    assertEquals((await planMarkdownTarget(text, BODY, true)).kind, "foreign");
  }
});

Deno.test("owned files: created, kept when identical, refreshed when ours, review-only when edited", async () => {
  const first = await planOwnedFile(undefined, "# Stack\n\nReact");
  assert(first.kind === "write");
  if (first.kind !== "write") return;
  assertEquals(await planOwnedFile(first.text, "# Stack\n\nReact"), { kind: "up-to-date" });
  assertEquals((await planOwnedFile(first.text, "# Stack\n\nVue")).kind, "write");
  assertEquals((await planOwnedFile(first.text.replace("React", "Svelte"), "x")).kind, "foreign");
  assertEquals((await planOwnedFile("# written by hand\n", "x")).kind, "foreign");
});

for (const name of FIXTURE_NAMES) {
  Deno.test(`Gate G: the ${name} block names its stack`, async () => {
    await using dir = await tempDir();
    const root = await copyFixture(name, dir.path);
    const { result } = await scanProject(root, NOW);
    const body = renderBlockBody({ scan: result, conventions: null });
    const check = checkStandardsBlock(await renderBlock(body));
    assertEquals(check.present, true);
    assertEquals(check.namesStack, true);
  });
}
