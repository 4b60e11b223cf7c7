/** docs/hosts.md's summary table is the one tools/hosts_table.ts generates from the host files. */
import { assertEquals } from "@std/assert";
import { END, hostsTable, START } from "../../tools/hosts_table.ts";
import { REPO } from "../support/cli.ts";

/** The table's cells, whatever padding the formatter added; the separator row left out. */
function cells(markdown: string): string[][] {
  const from = markdown.indexOf(START);
  const to = markdown.indexOf(END);
  return markdown.slice(from + START.length, to).split("\n")
    .filter((line) => line.startsWith("|") && !/^\|[\s|-]+\|$/.test(line))
    .map((line) => line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
}

Deno.test("docs/hosts.md's summary table matches the host files (run `deno task docs`)", () => {
  const doc = Deno.readTextFileSync(`${REPO}/docs/hosts.md`);
  assertEquals(cells(doc), cells(hostsTable()));
});
