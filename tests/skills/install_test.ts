import { assert, assertEquals, assertMatch, assertNotEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runInProcess } from "../support/ctx.ts";
import { exists, tempDir, writeText } from "../support/temp.ts";
import { skillMd, snapshot, standardTree, writeTree } from "../support/skill_tree.ts";

interface Fixture {
  root: string;
  src: string;
  project: string;
  home: string;
  run(args: string[], extraEnv?: Record<string, string>): ReturnType<typeof runInProcess>;
}

async function fixture(root: string): Promise<Fixture> {
  const src = join(root, "src");
  const project = join(root, "project");
  const home = join(root, "home");
  await standardTree(src);
  await Deno.mkdir(project, { recursive: true });
  await Deno.mkdir(home, { recursive: true });
  return {
    root,
    src,
    project,
    home,
    run: (args, extraEnv = {}) =>
      runInProcess([...args, "--project", project, "--json"], {
        cwd: project,
        env: { PEAKS_SKILLS_DIR: src, HOME: home, ...extraEnv },
      }),
  };
}

const manifestOf = async (dir: string) =>
  JSON.parse(await Deno.readTextFile(join(dir, ".peaks-skills-manifest.json")));

Deno.test("install writes each skill and a manifest with version and sha256 per file", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const result = await f.run(["skills", "install"]);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.source.kind, "env");
  assertEquals(result.json.data.targets[0].status, "installed");
  const skills = join(f.project, ".claude", "skills");
  assertEquals(await Deno.readTextFile(join(skills, "peaks-rd", "SKILL.md")), skillMd("peaks-rd"));
  assert(!(await exists(join(skills, "README.md"))), "top-level files are not installed");
  assert(!(await exists(join(skills, ".peaks-skills.lock"))), "no lock file is left behind");
  const manifest = await manifestOf(skills);
  assertEquals(manifest.version, "2.0.0");
  assertEquals(manifest.agents, ["claude-code"]);
  assertEquals(Object.keys(manifest.files).sort(), [
    "peaks-code/SKILL.md",
    "peaks-code/references/runbook.md",
    "peaks-rd/SKILL.md",
  ]);
  assertMatch(manifest.files["peaks-rd/SKILL.md"], /^[0-9a-f]{64}$/);
  assertEquals(manifest.createdDirs, [
    ".claude",
    ".claude/skills",
    ".claude/skills/peaks-code",
    ".claude/skills/peaks-code/references",
    ".claude/skills/peaks-rd",
  ]);
});

Deno.test("an upgrade updates untouched files, drops removed ones, keeps edited ones", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await writeTree(f.src, {
    "peaks-rd/references/old.md": "old\n",
    "peaks-rd/references/edited.md": "v1\n",
  });
  assertEquals((await f.run(["skills", "install"])).code, 0);
  const skills = join(f.project, ".claude", "skills");
  await writeText(join(skills, "peaks-rd", "references", "edited.md"), "my notes\n");
  // The next version changes one file and drops two.
  await writeTree(f.src, { "peaks-code/SKILL.md": skillMd("peaks-code", "Version two.") });
  await Deno.remove(join(f.src, "peaks-rd", "references"), { recursive: true });

  const result = await f.run(["skills", "install"]);
  assertEquals(result.code, 0, result.stdout);
  const actions = Object.fromEntries(
    result.json.data.targets[0].files.map((
      x: { path: string; action: string },
    ) => [x.path, x.action]),
  );
  assertEquals(actions, {
    "peaks-code/SKILL.md": "update",
    "peaks-rd/references/old.md": "remove",
    "peaks-rd/references/edited.md": "keep-modified",
  });
  assertEquals(
    await Deno.readTextFile(join(skills, "peaks-code", "SKILL.md")),
    skillMd("peaks-code", "Version two."),
  );
  assert(!(await exists(join(skills, "peaks-rd", "references", "old.md"))));
  assertEquals(
    await Deno.readTextFile(join(skills, "peaks-rd", "references", "edited.md")),
    "my notes\n",
  );
  assertEquals(result.json.warnings[0].code, "USER_MODIFIED_KEPT");
});

Deno.test("an edited file is reported and kept; --force overwrites it and records the new hash", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await f.run(["skills", "install"]);
  const file = join(f.project, ".claude", "skills", "peaks-code", "SKILL.md");
  await Deno.writeTextFile(file, "my own version\n");
  const kept = await f.run(["skills", "install"]);
  assertEquals(kept.code, 0);
  assertEquals(kept.json.data.targets[0].userModified, ["peaks-code/SKILL.md"]);
  assertEquals(kept.json.data.changed, false);
  assertEquals(await Deno.readTextFile(file), "my own version\n");

  const forced = await f.run(["skills", "install", "--force"]);
  assertEquals(forced.json.data.targets[0].files, [{
    path: "peaks-code/SKILL.md",
    action: "overwrite",
  }]);
  assertEquals(await Deno.readTextFile(file), skillMd("peaks-code"));
  const again = await f.run(["skills", "install"]);
  assertEquals(again.json.data.targets[0].status, "unchanged");
});

Deno.test("a deleted file is restored; an exact copy without a manifest is adopted", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await f.run(["skills", "install"]);
  const skills = join(f.project, ".claude", "skills");
  await Deno.remove(join(skills, "peaks-rd", "SKILL.md"));
  const restored = await f.run(["skills", "install"]);
  assertEquals(restored.json.data.targets[0].files, [{
    path: "peaks-rd/SKILL.md",
    action: "restore",
  }]);

  await Deno.remove(join(skills, ".peaks-skills-manifest.json"));
  const adopted = await f.run(["skills", "install"]);
  assertEquals(adopted.code, 0, adopted.stdout);
  assertEquals(adopted.json.data.targets[0].counts, { adopt: 3 });
  assertEquals((await manifestOf(skills)).skills, ["peaks-code", "peaks-rd"]);
});

Deno.test("a same-named folder peaks did not install is a conflict: exit 3, nothing written anywhere", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await writeTree(join(f.project, ".trae", "skills"), {
    "peaks-rd/SKILL.md": "the user's own skill\n",
  });
  const before = await snapshot(f.project);
  const result = await f.run(["skills", "install", "--agent", "all"]);
  assertEquals(result.code, 3);
  assertEquals(result.json.code, "SKILLS_CONFLICT");
  assertEquals(result.json.data.conflicts[0].skill, "peaks-rd");
  assertEquals(await snapshot(f.project), before);
});

Deno.test("symlinked skills folders and symlinks inside skills are never written through", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const outside = join(dir.path, "outside");
  await Deno.mkdir(outside);
  await Deno.mkdir(join(f.project, ".claude"));
  await Deno.symlink(outside, join(f.project, ".claude", "skills"));
  const linkedRoot = await f.run(["skills", "install"]);
  assertEquals(linkedRoot.json.code, "SYMLINK_REFUSED");
  assertEquals(await snapshot(outside), {});

  await Deno.remove(join(f.project, ".claude", "skills"));
  await f.run(["skills", "install"]);
  const refs = join(f.project, ".claude", "skills", "peaks-code", "references");
  await Deno.remove(refs, { recursive: true });
  await Deno.symlink(outside, refs);
  const linkedInside = await f.run(["skills", "install"]);
  assertEquals(linkedInside.code, 3);
  assertMatch(linkedInside.json.message, /references is a symlink/);
  assertEquals(await snapshot(outside), {});

  await Deno.remove(refs);
  await f.run(["skills", "install"]);
  const file = join(f.project, ".claude", "skills", "peaks-rd", "SKILL.md");
  await Deno.remove(file);
  await Deno.symlink(join(outside, "target.md"), file);
  const linkedFile = await f.run(["skills", "install", "--force"]);
  assertEquals(linkedFile.code, 0);
  assertEquals(
    linkedFile.json.data.targets[0].files,
    [{ path: "peaks-rd/SKILL.md", action: "blocked" }],
  );
  assertEquals(await snapshot(outside), {});
});

Deno.test("--dry-run reports the plan and creates nothing, not even folders", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const result = await f.run(["skills", "install", "--agent", "all", "--dry-run"]);
  assertEquals(result.code, 0);
  assertEquals(result.json.data.targets.map((t: { status: string }) => t.status), [
    "would-install",
    "would-install",
    "would-install",
    "would-install",
    "would-install",
    "would-install",
  ]);
  assertEquals(await snapshot(f.project), {});
});

Deno.test("an unreadable manifest is RECORD_UNREADABLE with a repair that works", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await f.run(["skills", "install"]);
  const path = join(f.project, ".claude", "skills", ".peaks-skills-manifest.json");
  await Deno.writeTextFile(path, "{ not json");
  const broken = await f.run(["skills", "install"]);
  assertEquals(broken.code, 1);
  assertEquals(broken.json.code, "RECORD_UNREADABLE");
  assertEquals(broken.json.nextActions, [
    `peaks skills install --agent claude-code --scope project --project ${f.project} --force --json`,
  ]);
  const repaired = await f.run(["skills", "install", "--force"]);
  assertEquals(repaired.code, 0, repaired.stdout);
  assertEquals((await manifestOf(join(f.project, ".claude", "skills"))).skills, [
    "peaks-code",
    "peaks-rd",
  ]);
});

Deno.test("user scope installs under HOME; without HOME it is HOME_NOT_SET", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const result = await f.run(["skills", "install", "--agent", "all", "--scope", "user"]);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.targets.map((t: { dir: string }) => t.dir), [
    "~/.claude/skills",
    "~/.agents/skills",
    "~/.cursor/skills",
    "~/.lingma/skills",
    "~/.qoder/skills",
    "~/.trae/skills",
  ]);
  for (const rel of [".claude", ".agents", ".cursor", ".lingma", ".qoder", ".trae"]) {
    assert(await exists(join(f.home, rel, "skills", "peaks-code", "SKILL.md")), rel);
  }
  assertEquals(await snapshot(f.project), {});
  const noHome = await runInProcess(["skills", "install", "--scope", "user", "--json"], {
    cwd: f.project,
    env: { PEAKS_SKILLS_DIR: f.src },
  });
  assertEquals(noHome.json.code, "HOME_NOT_SET");
});

Deno.test("executable scripts stay executable", async () => {
  if (Deno.build.os === "windows") return;
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const script = join(f.src, "peaks-code", "scripts", "check.sh");
  await writeText(script, "#!/bin/sh\necho ok\n");
  await Deno.chmod(script, 0o755);
  await f.run(["skills", "install"]);
  const installed = await Deno.stat(
    join(f.project, ".claude", "skills", "peaks-code", "scripts", "check.sh"),
  );
  assertEquals((installed.mode ?? 0) & 0o111, 0o111);
});

Deno.test("agents sharing .agents/skills are recorded; uninstalling one keeps the files for the rest", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await f.run(["skills", "install", "--agent", "codex"]);
  const second = await f.run(["skills", "install", "--agent", "gemini"]);
  assertEquals(second.json.data.targets[0].status, "updated");
  assertEquals(second.json.data.targets[0].files, []);
  const shared = join(f.project, ".agents", "skills");
  assertEquals((await manifestOf(shared)).agents, ["codex", "gemini"]);

  const released = await f.run(["skills", "uninstall", "--agent", "codex"]);
  assertEquals(released.json.data.targets[0].status, "released");
  assertEquals(released.json.data.targets[0].remainingAgents, ["gemini"]);
  assert(await exists(join(shared, "peaks-code", "SKILL.md")));
  const other = await f.run(["skills", "uninstall", "--agent", "cursor"]);
  assertEquals(other.json.data.targets[0].status, "not-installed");

  const removed = await f.run(["skills", "uninstall", "--agent", "gemini"]);
  assertEquals(removed.json.data.targets[0].status, "removed");
  assertEquals(await snapshot(f.project), {});
});

Deno.test("reinstalling with a new source path records it; the same source changes nothing", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await f.run(["skills", "install"]);
  const first = await snapshot(f.project);
  await f.run(["skills", "install"]);
  assertEquals(await snapshot(f.project), first);
  const copy = join(dir.path, "copy");
  await standardTree(copy);
  const moved = await f.run(["skills", "install"], { PEAKS_SKILLS_DIR: copy });
  assertEquals(moved.json.data.targets[0].status, "updated");
  assertNotEquals(await snapshot(f.project), first);
  assertEquals((await manifestOf(join(f.project, ".claude", "skills"))).source.path, copy);
});
