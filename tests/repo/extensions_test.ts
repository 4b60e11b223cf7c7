/**
 * The Gemini CLI and Qwen Code extensions under extensions/: each manifest names peaks at
 * deno.json's version, and each hooks/hooks.json holds exactly what `peaks hooks install` writes
 * for that host. The real CLIs validate and install them in tests/hosts/extensions_test.ts.
 */
import { assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { withOurs } from "../../lib/hooks/install.ts";
import { projectVersion } from "../../release/package.ts";
import { REPO } from "../support/cli.ts";

const CASES = [
  { folder: "gemini", manifest: "gemini-extension.json", host: "gemini" },
  { folder: "qwen", manifest: "qwen-extension.json", host: "qwen-code" },
] as const;

for (const c of CASES) {
  Deno.test(`extensions/${c.folder}: manifest at the project's version, hooks as hooks install writes them`, async () => {
    const dir = join(REPO, "extensions", c.folder);
    const manifest = JSON.parse(await Deno.readTextFile(join(dir, c.manifest)));
    assertEquals(Object.keys(manifest).sort(), ["description", "name", "version"]);
    assertEquals([manifest.name, manifest.version], ["peaks", await projectVersion()]);
    const hooks = JSON.parse(await Deno.readTextFile(join(dir, "hooks", "hooks.json")));
    assertEquals(hooks, { hooks: withOurs(c.host, {}) });
  });
}
