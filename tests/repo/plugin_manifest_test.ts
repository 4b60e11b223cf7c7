/**
 * The Claude Code plugin and marketplace manifests (.claude-plugin/): their shape, that the plugin
 * serves the one skills/ tree (no second copy anywhere), and that its icon is what the host asks
 * for. The real `claude plugin validate` run is recorded in docs/skills-install.md.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { join, relative } from "../../lib/infra/std.ts";
import { projectVersion } from "../../release/package.ts";
import { REPO } from "../support/cli.ts";

const PLUGIN_DIR = join(REPO, ".claude-plugin");
const plugin = JSON.parse(await Deno.readTextFile(join(PLUGIN_DIR, "plugin.json")));
const marketplace = JSON.parse(await Deno.readTextFile(join(PLUGIN_DIR, "marketplace.json")));
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;

function skillFolders(dir: string): string[] {
  return [...Deno.readDirSync(dir)].filter((e) => e.isDirectory).map((e) => e.name).sort();
}

Deno.test("plugin.json names the plugin, carries deno.json's version and points at skills/", async () => {
  assertEquals(
    Object.keys(plugin).sort(),
    [
      "author",
      "description",
      "homepage",
      "icon",
      "keywords",
      "license",
      "name",
      "repository",
      "skills",
      "version",
    ],
  );
  assertMatch(plugin.name, KEBAB);
  assertEquals(plugin.version, await projectVersion());
  assertEquals(plugin.license, "MIT");
  assertMatch(await Deno.readTextFile(join(REPO, "LICENSE")), /^MIT License/);
  assert(plugin.description.length > 40 && plugin.description.length <= 400);
  assertEquals(typeof plugin.author.name, "string");
  // Paths in a manifest are relative to the plugin root (the repository) and start with ./
  assertEquals(plugin.skills, "./skills/");
  assertEquals(
    skillFolders(join(REPO, plugin.skills)),
    ["peaks-code", "peaks-prd", "peaks-qa", "peaks-rd", "peaks-txt", "peaks-ui"],
  );
});

Deno.test("marketplace.json lists exactly this plugin, served from the repository root", () => {
  assertMatch(marketplace.name, KEBAB);
  assertEquals(typeof marketplace.owner.name, "string");
  assertEquals(marketplace.plugins.length, 1);
  const [entry] = marketplace.plugins;
  assertEquals(entry.name, plugin.name);
  assertEquals(entry.source, "./");
  assertEquals(
    JSON.parse(Deno.readTextFileSync(join(REPO, entry.source, ".claude-plugin", "plugin.json")))
      .name,
    plugin.name,
  );
});

Deno.test("every SKILL.md in the repository is under skills/: the plugin has no second copy", async () => {
  const found: string[] = [];
  const skip = new Set([".git", "node_modules", "dist", ".peaks"]);
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      if (skip.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name === "SKILL.md") found.push(relative(REPO, path).replaceAll("\\", "/"));
    }
  };
  await walk(REPO);
  const outside = found.filter((path) => !path.startsWith("skills/"));
  assertEquals(outside, []);
  assertEquals(found.length, skillFolders(join(REPO, "skills")).length);
});

Deno.test("the icon is a square PNG of 512 to 2048 pixels, under 2 MB", async () => {
  assertEquals(plugin.icon, "./.claude-plugin/icon.png");
  const bytes = await Deno.readFile(join(REPO, plugin.icon));
  assert(bytes.length < 2 * 1024 * 1024);
  assertEquals([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
  const header = new DataView(bytes.buffer, bytes.byteOffset + 16, 8);
  const [width, height] = [header.getUint32(0), header.getUint32(4)];
  assertEquals(width, height);
  assert(width >= 512 && width <= 2048, `${width} px`);
});

Deno.test("hooks/hooks.json holds exactly the hooks `peaks hooks install` writes for Claude Code", async () => {
  const { withOurs } = await import("../../lib/hooks/install.ts");
  const file = JSON.parse(await Deno.readTextFile(join(REPO, "hooks", "hooks.json")));
  assertEquals(Object.keys(file).sort(), ["description", "hooks"]);
  assertEquals(file.hooks, withOurs("claude-code", {}));
});
