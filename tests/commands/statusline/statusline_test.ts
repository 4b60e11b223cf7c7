import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { exists, tempDir, writeText } from "../../support/temp.ts";
import { peaksWords } from "../../support/next_actions.ts";

const SETTINGS = `{
  // keep this comment
  "permissions": {
    "allow": ["Bash(git status)"] /* inline */
  },
  "model": "opus"
}
`;

/** The change from `before` to `after` is one contiguous edit; returns what was inserted. */
function singleEdit(before: string, after: string): { removed: string; inserted: string } {
  let start = 0;
  while (start < before.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start && end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  ) end++;
  return {
    removed: before.slice(start, before.length - end),
    inserted: after.slice(start, after.length - end),
  };
}

Deno.test("install changes only the statusLine entry and is idempotent; uninstall restores the bytes", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/.claude/settings.json`;
  await writeText(path, SETTINGS);
  const install = await runPeaks(["statusline", "install", "--json"], { cwd: dir.path });
  assertEquals(install.code, 0, install.stdout);
  assertEquals(install.json.data.action, "installed");
  const after = await Deno.readTextFile(path);
  const edit = singleEdit(SETTINGS, after);
  assertEquals(edit.removed, "");
  assertMatch(edit.inserted, /"statusLine"/);
  assert(!/permissions|model|comment/.test(edit.inserted), edit.inserted);
  assertEquals(JSON.parse(after.replace(/\/\/.*|\/\*.*?\*\//g, "")).statusLine, {
    type: "command",
    command: "peaks statusline render",
    padding: 0,
  });

  const again = await runPeaks(["statusline", "install", "--json"], { cwd: dir.path });
  assertEquals(again.json.data.action, "unchanged");
  assertEquals(await Deno.readTextFile(path), after);

  const uninstall = await runPeaks(["statusline", "uninstall", "--json"], { cwd: dir.path });
  assertEquals(uninstall.json.data.action, "removed");
  assertEquals(await Deno.readTextFile(path), SETTINGS);
});

Deno.test("a foreign status line is a conflict (exit 3) unless --force; dry-run writes nothing", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/.claude/settings.json`;
  const foreign = `{\n\t"statusLine": {"type": "command", "command": "~/bin/my-line"}\n}\n`;
  await writeText(path, foreign);
  const conflict = await runPeaks(["statusline", "install", "--json"], { cwd: dir.path });
  assertEquals(conflict.code, 3);
  assertEquals(conflict.json.code, "STATUSLINE_CONFLICT");
  assertEquals(await Deno.readTextFile(path), foreign);
  const dry = await runPeaks(["statusline", "install", "--force", "--dry-run", "--json"], {
    cwd: dir.path,
  });
  assertEquals(dry.json.data.action, "would-be-replaced");
  assertEquals(await Deno.readTextFile(path), foreign);
  const keep = await runPeaks(["statusline", "uninstall", "--json"], { cwd: dir.path });
  assertEquals(keep.code, 3);
  const [force] = conflict.json.nextActions;
  assertMatch(force, /--force --json$/);
  const forced = await runPeaks(peaksWords(force), { cwd: dir.path });
  assertEquals(forced.json.data.action, "replaced");
  const text = await Deno.readTextFile(path);
  assertMatch(text, /\n\t"statusLine"/, "tab indentation kept");
  assertMatch(text, /peaks statusline render/);
});

Deno.test("a new settings file is created; the user scope uses HOME", async () => {
  await using dir = await tempDir();
  await using home = await tempDir();
  const project = await runPeaks(["statusline", "install", "--json"], { cwd: dir.path });
  assertEquals(project.json.data.action, "installed");
  assert(await exists(`${dir.path}/.claude/settings.json`));
  const user = await runPeaks(["statusline", "install", "--scope", "user", "--json"], {
    cwd: dir.path,
    home: home.path,
  });
  assertEquals(user.json.data.settingsPath, `${home.path}/.claude/settings.json`);
  assert(await exists(`${home.path}/.claude/settings.json`));
});

Deno.test("symlinked settings, an escaping .claude and broken JSON are refused untouched", async () => {
  await using dir = await tempDir();
  await using outside = await tempDir();
  await writeText(`${outside.path}/real.json`, "{}\n");
  await Deno.mkdir(`${dir.path}/.claude`);
  await Deno.symlink(`${outside.path}/real.json`, `${dir.path}/.claude/settings.json`);
  const link = await runPeaks(["statusline", "install", "--json"], { cwd: dir.path });
  assertEquals(link.json.code, "PATH_OUTSIDE_PROJECT");
  await Deno.remove(`${dir.path}/.claude/settings.json`);
  await Deno.symlink(`${dir.path}/.claude/other.json`, `${dir.path}/.claude/settings.json`);
  await writeText(`${dir.path}/.claude/other.json`, "{}\n");
  const inner = await runPeaks(["statusline", "install", "--json"], { cwd: dir.path });
  assertEquals(inner.json.code, "SYMLINK_REFUSED");
  assertEquals(await Deno.readTextFile(`${dir.path}/.claude/other.json`), "{}\n");

  await using dir2 = await tempDir();
  await Deno.symlink(outside.path, `${dir2.path}/.claude`);
  const escape = await runPeaks(["statusline", "install", "--json"], { cwd: dir2.path });
  assertEquals(escape.json.code, "PATH_OUTSIDE_PROJECT");
  assertEquals(await Deno.readTextFile(`${outside.path}/real.json`), "{}\n");

  await using dir3 = await tempDir();
  for (const bad of ["{ nope", "[1, 2]", '"text"']) {
    await writeText(`${dir3.path}/.claude/settings.json`, bad);
    const result = await runPeaks(["statusline", "install", "--json"], { cwd: dir3.path });
    assertEquals(result.json.code, "SETTINGS_INVALID", bad);
    assertEquals(await Deno.readTextFile(`${dir3.path}/.claude/settings.json`), bad);
  }
});

Deno.test("render never fails: garbage, empty or missing input, no workspace", async () => {
  await using dir = await tempDir();
  for (
    const stdin of [
      undefined,
      "",
      "not json",
      "[1,2]",
      '{"context_window": "x", "workspace": 7}',
      '{"workspace":{"project_dir":"/nope/nowhere"}}',
    ]
  ) {
    const result = await runPeaks(["statusline", "render"], { cwd: dir.path, stdin });
    assertEquals(result.code, 0, String(stdin));
    assertEquals(result.stderr, "");
    assertEquals(result.stdout.split("\n").length, 2, "exactly one line");
  }
  assertEquals(await exists(`${dir.path}/.peaks`), false, "render creates no workspace");
  await runPeaks(["workspace", "init"], { cwd: dir.path });
  const fromStdin = await runPeaks(["statusline", "render"], {
    cwd: "/",
    stdin: JSON.stringify({
      workspace: { project_dir: dir.path },
      context_window: { used_percentage: 12 },
    }),
  });
  assertMatch(fromStdin.stdout, /ctx 12%/);
});
