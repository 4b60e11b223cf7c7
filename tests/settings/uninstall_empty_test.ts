/**
 * Uninstalling the status line, the allow rule or the hooks removes a settings file the install
 * created once nothing else is in it, and keeps a file that holds anything else.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import { exists, tempDir, writeText } from "../support/temp.ts";
import { join } from "../../lib/infra/std.ts";
import { isEmptySettings } from "../../lib/settings/settings.ts";

const CASES: { name: string; install: string[]; uninstall: string[]; file: string }[] = [
  {
    name: "statusline",
    install: ["statusline", "install", "--scope", "project"],
    uninstall: ["statusline", "uninstall", "--scope", "project"],
    file: ".claude/settings.json",
  },
  {
    name: "permissions",
    install: ["permissions", "install"],
    uninstall: ["permissions", "uninstall"],
    file: ".claude/settings.local.json",
  },
  {
    name: "hooks (Claude Code)",
    install: ["hooks", "install"],
    uninstall: ["hooks", "uninstall"],
    file: ".claude/settings.local.json",
  },
  {
    name: "hooks (Copilot CLI)",
    install: ["hooks", "install", "--host", "copilot", "--scope", "user"],
    uninstall: ["hooks", "uninstall", "--host", "copilot", "--scope", "user"],
    file: "home/.copilot/hooks/peaks.json",
  },
];

const run = (cwd: string, args: string[]) =>
  runPeaks([...args, "--json"], { cwd, home: join(cwd, "home") });

for (const c of CASES) {
  Deno.test(`${c.name}: uninstall removes the settings file its install created`, async () => {
    await using dir = await tempDir();
    const path = join(dir.path, c.file);
    const install = await run(dir.path, c.install);
    assertEquals(install.code, 0, install.stderr);
    assert(await exists(path), "the install created the file");
    const uninstall = await run(dir.path, c.uninstall);
    assertEquals(uninstall.code, 0, uninstall.stderr);
    assertEquals(uninstall.json.data.fileRemoved, true);
    assertEquals(await exists(path), false, await Deno.readTextFile(path).catch(() => ""));
    const human = await runPeaks([...c.install], { cwd: dir.path, home: join(dir.path, "home") });
    assertEquals(human.code, 0, human.stderr);
    const again = await runPeaks(c.uninstall, { cwd: dir.path, home: join(dir.path, "home") });
    assertStringIncludes(again.stdout, "nothing else was left in the file, so it was removed");
  });

  Deno.test(`${c.name}: uninstall keeps a settings file that holds anything else`, async () => {
    await using dir = await tempDir();
    const path = join(dir.path, c.file);
    await writeText(path, '{\n  // mine\n  "model": "opus"\n}\n');
    assertEquals((await run(dir.path, c.install)).code, 0);
    const uninstall = await run(dir.path, c.uninstall);
    assertEquals(uninstall.code, 0, uninstall.stderr);
    assertEquals(uninstall.json.data.fileRemoved, undefined);
    assertStringIncludes(await Deno.readTextFile(path), '"model": "opus"');
  });
}

Deno.test("isEmptySettings: no comment, no setting, only what peaks itself writes", () => {
  assert(isEmptySettings("{}\n"));
  assert(isEmptySettings('{ "permissions": { "allow": [] } }'));
  assert(isEmptySettings('{ "version": 1 }', { version: 1 }));
  assert(!isEmptySettings('{ "version": 1 }'));
  assert(!isEmptySettings("{ // kept\n}"));
  assert(!isEmptySettings('{ "url": "http://x//y", "a": 1 }'));
  assert(isEmptySettings('{ "note": {}, "list": [] }'));
  assert(!isEmptySettings("[]"));
  assert(!isEmptySettings("{ broken"));
});
