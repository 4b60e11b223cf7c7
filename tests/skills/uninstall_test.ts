import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runInProcess } from "../support/ctx.ts";
import { exists, tempDir, writeText } from "../support/temp.ts";
import { snapshot, standardTree } from "../support/skill_tree.ts";

async function setup(root: string) {
  const src = join(root, "src");
  const project = join(root, "project");
  await standardTree(src);
  await Deno.mkdir(project);
  const run = (args: string[]) =>
    runInProcess([...args, "--project", project, "--json"], {
      cwd: project,
      env: { PEAKS_SKILLS_DIR: src, HOME: join(root, "home") },
    });
  return { src, project, run };
}

Deno.test("uninstall removes what peaks wrote and the folders it created, nothing else", async () => {
  await using dir = await tempDir();
  const { project, run } = await setup(dir.path);
  // .claude existed before (the user's settings live there): it must survive.
  await writeText(join(project, ".claude", "settings.json"), "{}\n");
  await run(["skills", "install"]);
  await writeText(join(project, ".claude", "skills", "theirs", "SKILL.md"), "foreign\n");
  await writeText(
    join(project, ".claude", "skills", "peaks-rd", "notes.md"),
    "the user's extra file\n",
  );

  const result = await run(["skills", "uninstall"]);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.targets[0].status, "removed");
  assertEquals(await snapshot(project), {
    ".claude/": "",
    ".claude/settings.json": "{}\n",
    ".claude/skills/": "",
    ".claude/skills/peaks-rd/": "",
    ".claude/skills/peaks-rd/notes.md": "the user's extra file\n",
    ".claude/skills/theirs/": "",
    ".claude/skills/theirs/SKILL.md": "foreign\n",
  });
});

Deno.test("an edited file is kept with the manifest that knows it; --force deletes it too", async () => {
  await using dir = await tempDir();
  const { project, run } = await setup(dir.path);
  await run(["skills", "install"]);
  const skills = join(project, ".claude", "skills");
  await Deno.writeTextFile(join(skills, "peaks-code", "SKILL.md"), "edited\n");

  const kept = await run(["skills", "uninstall"]);
  assertEquals(kept.json.data.targets[0].status, "partly-removed");
  assertEquals(kept.json.data.targets[0].kept, [{
    path: "peaks-code/SKILL.md",
    reason: "user-modified",
  }]);
  assertEquals(kept.json.warnings[0].code, "FILES_KEPT");
  assertEquals(Object.keys(await snapshot(skills)).sort(), [
    ".peaks-skills-manifest.json",
    "peaks-code/",
    "peaks-code/SKILL.md",
  ]);
  const manifest = JSON.parse(await Deno.readTextFile(join(skills, ".peaks-skills-manifest.json")));
  assertEquals(Object.keys(manifest.files), ["peaks-code/SKILL.md"]);

  const forced = await run(["skills", "uninstall", "--force"]);
  assertEquals(forced.json.data.targets[0].status, "removed");
  assertEquals(await snapshot(project), {});
});

Deno.test("uninstall with nothing installed, and --dry-run, change nothing", async () => {
  await using dir = await tempDir();
  const { project, run } = await setup(dir.path);
  const none = await run(["skills", "uninstall", "--agent", "all"]);
  assertEquals(none.code, 0);
  assertEquals(none.json.data.targets.map((t: { status: string }) => t.status), [
    "not-installed",
    "not-installed",
    "not-installed",
    "not-installed",
    "not-installed",
    "not-installed",
  ]);
  await run(["skills", "install"]);
  const before = await snapshot(project);
  const dry = await run(["skills", "uninstall", "--dry-run"]);
  assertEquals(dry.json.data.targets[0].status, "would-remove");
  assertEquals(dry.json.data.targets[0].removed.length, 3);
  assertEquals(await snapshot(project), before);
});

Deno.test("uninstall never deletes through a symlinked folder inside a skill", async () => {
  await using dir = await tempDir();
  const { project, run } = await setup(dir.path);
  await run(["skills", "install"]);
  const outside = join(dir.path, "outside");
  await writeText(join(outside, "runbook.md"), "# Runbook\n");
  const refs = join(project, ".claude", "skills", "peaks-code", "references");
  await Deno.remove(refs, { recursive: true });
  await Deno.symlink(outside, refs);
  const result = await run(["skills", "uninstall"]);
  assertEquals(result.code, 0);
  assertEquals(result.json.data.targets[0].kept, [
    { path: "peaks-code/references/runbook.md", reason: "behind-symlink" },
  ]);
  assert(await exists(join(outside, "runbook.md")));
});
