import { assertEquals } from "@std/assert";
import { lintText, placeholdersOf } from "../../lib/request/linter.ts";
import { appendHistory, readHistory } from "../../lib/request/history.ts";

const FRONT =
  "---\nrid: r1\nrole: prd\ntype: feature\nstate: draft\ncreatedAt: x\nupdatedAt: x\n---\n";

Deno.test("every placeholder is one error with its file line number", () => {
  const text = `${FRONT}# PRD r1: <title>\n\n- <goal> and <another goal>\n`;
  const { errors } = lintText(text);
  assertEquals(errors.map((e) => [e.line, e.rule, e.token]), [
    [9, "placeholder", "<title>"],
    [11, "placeholder", "<goal>"],
    [11, "placeholder", "<another goal>"],
  ]);
});

Deno.test("bullets that are only an ellipsis are errors, in every list style", () => {
  const text = "# T\n- ...\n  * …\n1. ...\n- ... but more\n-...\n";
  const { errors } = lintText(text);
  assertEquals(errors.map((e) => [e.line, e.rule]), [
    [2, "ellipsis-bullet"],
    [3, "ellipsis-bullet"],
    [4, "ellipsis-bullet"],
  ]);
});

Deno.test("TBD, TODO and FIXME are warnings, not errors; lower case is prose", () => {
  const { errors, warnings } = lintText("# T\nTODO: later, TBD\nFIXME\na todo list\n");
  assertEquals(errors, []);
  assertEquals(warnings.map((w) => [w.line, w.token]), [[2, "TODO"], [2, "TBD"], [3, "FIXME"]]);
});

Deno.test("code, comments, autolinks and HTML tags are not placeholders", () => {
  const text = [
    "Use `Promise<string>` here.",
    "```ts",
    "const x: Array<number> = [];",
    "- ...",
    "```",
    "<!-- a <comment> -->",
    "See <https://example.com/a> or <dev@example.com>.",
    'Line<br>break, <img src="a.png"> and <details>',
    "But <table name> and <title> are placeholders.",
  ].join("\n");
  const { errors } = lintText(text);
  assertEquals(errors.map((e) => [e.line, e.token]), [[9, "<table name>"], [9, "<title>"]]);
});

Deno.test("the front matter and the peaks history block are skipped", () => {
  const body = appendHistory(
    "# Title\n\nReal text.\n",
    "2026 draft → blocked (reason: <waiting> TODO)",
  );
  const text = `${FRONT}${body}`;
  assertEquals(lintText(text), { errors: [], warnings: [] });
  assertEquals(readHistory(body), ["2026 draft → blocked (reason: <waiting> TODO)"]);
  const twice = appendHistory(body, "second");
  assertEquals(readHistory(twice), ["2026 draft → blocked (reason: <waiting> TODO)", "second"]);
  assertEquals(lintText(`${FRONT}<oops>\n`).errors.length, 1);
});

Deno.test("placeholdersOf reports line and token only", () => {
  assertEquals(placeholdersOf("a\n<x>\n<b>\n"), [{ line: 2, token: "<x>" }]);
});
