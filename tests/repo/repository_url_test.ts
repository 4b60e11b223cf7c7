/**
 * The repository address is written once, in deno.json's "repository"; the README's install
 * routes, the plugin manifest, the peaks-code skill and the release installers all take it.
 */
import { assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { projectRepository } from "../../release/package.ts";
import { REPO } from "../support/cli.ts";

const repository = await projectRepository();
const read = (path: string) => Deno.readTextFile(join(REPO, path));

Deno.test("the README's install routes download from deno.json's repository", async () => {
  const readme = await read("README.md");
  for (const name of ["install.sh | sh", "install.ps1 | iex"]) {
    assertStringIncludes(readme, `${repository}/releases/latest/download/${name}`);
  }
  const slug = new URL(repository).pathname.slice(1);
  assertStringIncludes(readme, `/plugin install peaks --marketplace ${slug}`);
  assertStringIncludes(readme, `claude plugin marketplace add ${slug}`);
  assertEquals(readme.includes("<owner>"), false);
});

Deno.test("the plugin manifest and the peaks-code skill name the same repository", async () => {
  const plugin = JSON.parse(await read(".claude-plugin/plugin.json"));
  assertEquals([plugin.repository, plugin.homepage], [repository, repository]);
  assertStringIncludes(await read("skills/peaks-code/SKILL.md"), `${repository}/releases`);
});

Deno.test("the release workflow stamps the installers with that address, checked against GitHub's", async () => {
  const workflow = await read(".github/workflows/release.yml");
  assertStringIncludes(workflow, '--releases-url "$repository/releases"');
  assertStringIncludes(workflow, '"$GITHUB_SERVER_URL/$GITHUB_REPOSITORY"');
});
