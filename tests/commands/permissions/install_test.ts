/**
 * `permissions install|uninstall`: the Claude Code allow rule for peaks,
 * added and removed in place (comments, order, indentation kept), only
 * when asked, and idempotent.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { exists, tempDir, writeText } from "../../support/temp.ts";

const SETTINGS = `{
  // keep this comment
  "permissions": {
    "allow": ["Bash(git status)"], /* inline */
    "deny": ["Bash(rm:*)"]
  },
  "model": "opus"
}
`;

const strip = (text: string) => JSON.parse(text.replace(/\/\/.*|\/\*.*?\*\//g, ""));

Deno.test("install appends Bash(peaks:*) to permissions.allow, keeps every other byte, and is idempotent", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/.claude/settings.local.json`;
  await writeText(path, SETTINGS);
  const install = await runPeaks(["permissions", "install", "--json"], { cwd: dir.path });
  assertEquals(install.code, 0, install.stdout);
  assertEquals([install.json.data.action, install.json.data.rule], ["installed", "Bash(peaks:*)"]);
  const after = await Deno.readTextFile(path);
  assertEquals(strip(after).permissions, {
    allow: ["Bash(git status)", "Bash(peaks:*)"],
    deny: ["Bash(rm:*)"],
  });
  for (const kept of ["// keep this comment", "/* inline */", '"model": "opus"']) {
    assert(after.includes(kept), `${kept} lost:\n${after}`);
  }

  const again = await runPeaks(["permissions", "install", "--scope", "local", "--json"], {
    cwd: dir.path,
  });
  assertEquals([again.json.data.action, again.json.data.changed], ["unchanged", false]);
  assertEquals(await Deno.readTextFile(path), after);

  const uninstall = await runPeaks(["permissions", "uninstall", "--json"], { cwd: dir.path });
  assertEquals(uninstall.json.data.action, "removed");
  const restored = await Deno.readTextFile(path);
  assertEquals(strip(restored).permissions.allow, ["Bash(git status)"]);
  assert(restored.includes("// keep this comment") && restored.includes("/* inline */"));
  const twice = await runPeaks(["permissions", "uninstall", "--json"], { cwd: dir.path });
  assertEquals(twice.json.data.action, "unchanged");
});

Deno.test("no settings file or no permissions key: one is created with just the rule; dry-run writes nothing", async () => {
  await using dir = await tempDir();
  const local = `${dir.path}/.claude/settings.local.json`;
  const dry = await runPeaks(
    ["permissions", "install", "--scope", "local", "--dry-run", "--json"],
    {
      cwd: dir.path,
    },
  );
  assertEquals([dry.code, dry.json.data.action], [0, "would-be-installed"]);
  assert(!(await exists(local)));
  const made = await runPeaks(["permissions", "install", "--scope", "local", "--json"], {
    cwd: dir.path,
  });
  assertEquals(made.json.data.settingsPath, local);
  assertEquals(strip(await Deno.readTextFile(local)), {
    permissions: { allow: ["Bash(peaks:*)"] },
  });

  const shared = `${dir.path}/.claude/settings.json`;
  await writeText(shared, '{\n\t"model": "opus"\n}\n');
  await runPeaks(["permissions", "install", "--scope", "project", "--json"], { cwd: dir.path });
  const text = await Deno.readTextFile(shared);
  assertEquals(strip(text), { model: "opus", permissions: { allow: ["Bash(peaks:*)"] } });
  assertMatch(text, /\n\t"permissions"/);

  const user = await runPeaks(["permissions", "install", "--scope", "user", "--json"], {
    cwd: dir.path,
    home: `${dir.path}/home`,
  });
  assertEquals(user.json.data.settingsPath, `${dir.path}/home/.claude/settings.json`);
});

Deno.test("a deny rule for peaks is reported; a permissions value of the wrong type is not rewritten", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/.claude/settings.local.json`;
  await writeText(path, '{"permissions": {"deny": ["Bash(peaks:*)"]}}\n');
  const warned = await runPeaks(["permissions", "install", "--json"], { cwd: dir.path });
  assertEquals(warned.json.warnings.map((w: { code: string }) => w.code), ["PEAKS_DENIED"]);
  assertEquals(strip(await Deno.readTextFile(path)).permissions.allow, ["Bash(peaks:*)"]);

  const broken = '{"permissions": {"allow": "Bash(peaks:*)"}}\n';
  await writeText(path, broken);
  const refused = await runPeaks(["permissions", "install", "--json"], { cwd: dir.path });
  assertEquals([refused.code, refused.json.code], [1, "SETTINGS_INVALID"]);
  assertEquals(await Deno.readTextFile(path), broken);
});
