/**
 * The README's quick start as CI reads it (.ci/quickstart.ts): the two commands for a machine
 * without Deno, and every way a README can lose them.
 */
import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { quickStartCommands, QuickStartError } from "../../.ci/quickstart.ts";
import { REPO } from "../support/cli.ts";

const readme = await Deno.readTextFile(join(REPO, "README.md"));

function page(block: string[], heading = "## Quick start (from a clone)"): string {
  return [
    "# peaks",
    "",
    "Intro.",
    "",
    heading,
    "",
    "```sh",
    ...block,
    "```",
    "",
    "## Install",
    "",
    "```sh",
    "npx -y deno@2.9.6 task demo-elsewhere",
    "```",
    "",
  ].join("\n");
}

Deno.test("the README's quick start gives one npx command for the demo and one for the tests", () => {
  const commands = quickStartCommands(readme);
  assertEquals(commands, {
    demo: "npx -y deno@2.9.6 task demo",
    test: "npx -y deno@2.9.6 task test",
  });
});

Deno.test("the README shows the plain deno form of each quick-start command beside it", () => {
  const block = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## Install"));
  for (const command of Object.values(quickStartCommands(readme))) {
    const plain = command.replace(/^npx -y deno@\S+/, "deno");
    assertStringIncludes(block, `\n${plain}\n`);
  }
});

Deno.test("the pinned Deno is the same in the README, .ci/run and the workflows", async () => {
  const pinned = /deno@(\d+\.\d+\.\d+)/.exec(quickStartCommands(readme).test)![1];
  const ci = await Deno.readTextFile(join(REPO, ".ci", "run"));
  assertEquals(/DENO_VERSION="([^"]+)"/.exec(ci)?.[1], pinned);
  for (const workflow of ["ci.yml", "release.yml"]) {
    const text = await Deno.readTextFile(join(REPO, ".github", "workflows", workflow));
    const versions = [...text.matchAll(/deno-version: (\S+)/g)].map((m) => m[1]);
    assertEquals([...new Set(versions)], [pinned], workflow);
  }
});

Deno.test("comments are not commands; a trailing comment is cut off", () => {
  const commands = quickStartCommands(page([
    "# npx -y deno@2.9.6 task demo   (a comment, not a command)",
    "npx -y deno@2.9.6 task demo --fast   # quick",
    "",
    "npx -y deno@2.9.6 task test",
    "deno task test",
  ]));
  assertEquals(commands.demo, "npx -y deno@2.9.6 task demo --fast");
  assertEquals(commands.test, "npx -y deno@2.9.6 task test");
});

Deno.test("a README that lost a quick-start command is refused, naming what is missing", () => {
  const cases: Array<[string, string]> = [
    ["# peaks\n\nNo quick start here.\n", 'no "## Quick start" section'],
    ["## Quick start\n\nRun the demo.\n\n## Install\n", "no ```sh block"],
    ["## Quick start\n\n```sh\nnpx -y deno@2.9.6 task demo\n", "not closed"],
    [page(["deno task demo", "deno task test"]), "runs the demo, found 0"],
    [
      page(["npx -y deno@2.9.6 task demoo", "npx -y deno@2.9.6 task test"]),
      "runs the demo, found 0",
    ],
    [page(["npx -y deno@2.9.6 task demo"]), "runs the test, found 0"],
    [
      page(["npx -y deno@2.9.6 task demo", "npx deno task demo", "npx -y deno@2.9.6 task test"]),
      "runs the demo, found 2",
    ],
    [page(["npx -y deno@2.9.6 task demo test"]), "both the demo and the tests"],
  ];
  for (const [markdown, message] of cases) {
    const error = assertThrows(() => quickStartCommands(markdown), QuickStartError);
    assertStringIncludes(error.message, message);
  }
});

Deno.test("only the quick-start section counts, and a # line inside its block does not end it", () => {
  const markdown = page(["# first line is a comment", "npx -y deno@2.9.6 task demo"]) +
    "\n## Quick start again\n\n```sh\nnpx -y deno@2.9.6 task test\n```\n";
  const error = assertThrows(() => quickStartCommands(markdown), QuickStartError);
  assertStringIncludes(error.message, "runs the test, found 0");
});
