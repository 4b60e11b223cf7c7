/**
 * The host packages under extensions/ (Gemini CLI and Qwen Code extensions, Codex and Copilot CLI
 * plugins, each in a marketplace of its own): each manifest names peaks at deno.json's version,
 * and each hooks file holds exactly what `peaks hooks install` writes for that host. The real CLIs
 * validate and install them in tests/hosts/extensions_test.ts.
 */
import { assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { withOurs } from "../../lib/hooks/install.ts";
import type { HookHost } from "../../lib/hooks/hosts.ts";
import { projectVersion } from "../../release/package.ts";
import { REPO } from "../support/cli.ts";

interface Case {
  folder: string;
  host: HookHost;
  manifest: string;
  keys: string[];
  hooks: string;
  /** The hooks file's shape around the `hooks` value. */
  wrap: (hooks: unknown) => unknown;
  /** The marketplace file that serves the folder as a one-plugin marketplace. */
  marketplace?: string;
}

const extension = ["description", "name", "version"];
const plain = (hooks: unknown) => ({ hooks });

const CASES: Case[] = [
  {
    folder: "gemini",
    host: "gemini",
    manifest: "gemini-extension.json",
    keys: extension,
    hooks: "hooks/hooks.json",
    wrap: plain,
  },
  {
    folder: "qwen",
    host: "qwen-code",
    manifest: "qwen-extension.json",
    keys: extension,
    hooks: "hooks/hooks.json",
    wrap: plain,
  },
  {
    folder: "codex",
    host: "codex",
    manifest: ".codex-plugin/plugin.json",
    keys: ["author", "description", "hooks", "interface", "license", "name", "version"],
    hooks: "hooks/hooks.json",
    wrap: plain,
    marketplace: ".agents/plugins/marketplace.json",
  },
  {
    folder: "copilot",
    host: "copilot",
    manifest: "plugin.json",
    keys: ["author", "description", "hooks", "license", "name", "version"],
    hooks: "hooks.json",
    wrap: (hooks) => ({ version: 1, hooks }),
    marketplace: ".github/plugin/marketplace.json",
  },
];

for (const c of CASES) {
  Deno.test(`extensions/${c.folder}: manifest at the project's version, hooks as hooks install writes them`, async () => {
    const dir = join(REPO, "extensions", c.folder);
    const version = await projectVersion();
    const manifest = JSON.parse(await Deno.readTextFile(join(dir, c.manifest)));
    assertEquals(Object.keys(manifest).sort(), c.keys);
    assertEquals([manifest.name, manifest.version], ["peaks", version]);
    if (manifest.hooks) assertEquals(manifest.hooks.replace(/^\.\//, ""), c.hooks);
    const hooks = JSON.parse(await Deno.readTextFile(join(dir, c.hooks)));
    assertEquals(hooks, c.wrap(withOurs(c.host, {})));
    if (c.marketplace) {
      const market = JSON.parse(await Deno.readTextFile(join(dir, c.marketplace)));
      assertEquals(market.name, "peaks");
      assertEquals(market.plugins.length, 1);
      const [plugin] = market.plugins;
      assertEquals(plugin.name, "peaks");
      // The folder itself is the plugin: the marketplace serves "./".
      assertEquals(plugin.source?.path ?? plugin.source, "./");
      if (plugin.version) {
        assertEquals([plugin.version, market.metadata.version], [version, version]);
      }
    }
  });
}

Deno.test("extensions/opencode: a local package at the project's version whose module is the plugin", async () => {
  const dir = join(REPO, "extensions", "opencode");
  const manifest = JSON.parse(await Deno.readTextFile(join(dir, "package.json")));
  assertEquals(manifest.version, await projectVersion());
  assertEquals([manifest.type, manifest.main, manifest.exports["./server"]], [
    "module",
    "index.ts",
    "./index.ts",
  ]);
  const plugin = await Deno.readTextFile(join(dir, "index.ts"));
  // Every hook the plugin hands to peaks is one the host declaration lists.
  const { HOOK_HOST_FACTS } = await import("../../lib/hooks/hosts.ts");
  for (const { event } of HOOK_HOST_FACTS.opencode.events) {
    assertEquals(plugin.includes(`peaks("${event}"`), true, event);
  }
});
