import { assertEquals, assertMatch, assertRejects } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import { locateSkillsSource, readSkillsSource, type SourceProbe } from "../../lib/skills/source.ts";
import { fakeCtx } from "../support/ctx.ts";
import { tempDir } from "../support/temp.ts";
import { skillMd, standardTree, writeTree } from "../support/skill_tree.ts";

function probe(root: string, compiled: boolean): SourceProbe {
  return {
    compiled,
    execPath: join(root, "install", "bin", "peaks"),
    bundledDir: join(root, "embedded", "skills"),
  };
}

async function errorOf(promise: Promise<unknown>): Promise<PeaksError> {
  return await assertRejects(() => promise, PeaksError);
}

Deno.test("PEAKS_SKILLS_DIR wins over every other source, relative to the cwd", async () => {
  await using dir = await tempDir();
  await standardTree(join(dir.path, "mine"));
  await standardTree(join(dir.path, "install", "bin", "skills"));
  const ctx = fakeCtx({ cwd: dir.path, env: { PEAKS_SKILLS_DIR: "mine" } });
  assertEquals(await locateSkillsSource(ctx, probe(dir.path, true)), {
    kind: "env",
    path: join(dir.path, "mine"),
  });
});

Deno.test("a PEAKS_SKILLS_DIR that is not a folder is an error, never a silent fallback", async () => {
  await using dir = await tempDir();
  await standardTree(join(dir.path, "embedded", "skills"));
  const ctx = fakeCtx({ cwd: dir.path, env: { PEAKS_SKILLS_DIR: "missing" } });
  const error = await errorOf(locateSkillsSource(ctx, probe(dir.path, true)));
  assertEquals(error.code, "SKILLS_SOURCE_NOT_FOUND");
  assertMatch(error.message, /PEAKS_SKILLS_DIR points at .*missing/);
});

Deno.test("a compiled binary prefers skills/ beside it, then one level up, then its embedded copy", async () => {
  await using dir = await tempDir();
  const ctx = fakeCtx({ cwd: dir.path });
  const compiled = probe(dir.path, true);
  await standardTree(join(dir.path, "embedded", "skills"));
  assertEquals((await locateSkillsSource(ctx, compiled)).kind, "embedded");
  await standardTree(join(dir.path, "install", "skills"));
  assertEquals(await locateSkillsSource(ctx, compiled), {
    kind: "binary",
    path: join(dir.path, "install", "skills"),
  });
  await standardTree(join(dir.path, "install", "bin", "skills"));
  assertEquals(await locateSkillsSource(ctx, compiled), {
    kind: "binary",
    path: join(dir.path, "install", "bin", "skills"),
  });
});

Deno.test("under deno run the repository's skills/ is the source", async () => {
  await using dir = await tempDir();
  await standardTree(join(dir.path, "embedded", "skills"));
  await standardTree(join(dir.path, "install", "bin", "skills"));
  const found = await locateSkillsSource(fakeCtx({ cwd: dir.path }), probe(dir.path, false));
  assertEquals(found, { kind: "repository", path: join(dir.path, "embedded", "skills") });
});

Deno.test("no tree anywhere is SKILLS_SOURCE_NOT_FOUND naming the places tried", async () => {
  await using dir = await tempDir();
  const error = await errorOf(
    locateSkillsSource(fakeCtx({ cwd: dir.path }), probe(dir.path, true)),
  );
  assertEquals(error.code, "SKILLS_SOURCE_NOT_FOUND");
  assertEquals((error.data.tried as unknown[]).length, 3);
  assertMatch(error.message, /Set PEAKS_SKILLS_DIR/);
});

Deno.test("a tree without skill folders is SKILLS_SOURCE_EMPTY with a clear message", async () => {
  await using dir = await tempDir();
  await writeTree(join(dir.path, "src"), { "README.md": "skills come later\n", ".gitkeep": "" });
  const ctx = fakeCtx({ cwd: dir.path, env: { PEAKS_SKILLS_DIR: join(dir.path, "src") } });
  const error = await errorOf(readSkillsSource(ctx));
  assertEquals(error.code, "SKILLS_SOURCE_EMPTY");
  assertEquals(error.exit, 1);
  assertMatch(error.message, /holds no skills/);
});

Deno.test("reading a tree hashes every file, skips dotfiles and ignores top-level files", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "src");
  await standardTree(src);
  await writeTree(src, { "peaks-rd/.DS_Store": "x", ".github/x.md": "y" });
  const source = await readSkillsSource(fakeCtx({ cwd: dir.path, env: { PEAKS_SKILLS_DIR: src } }));
  assertEquals(source.kind, "env");
  assertEquals(source.skills.map((s) => s.name), ["peaks-code", "peaks-rd"]);
  assertEquals([...source.files.keys()].sort(), [
    "peaks-code/SKILL.md",
    "peaks-code/references/runbook.md",
    "peaks-rd/SKILL.md",
  ]);
  assertEquals(source.ignored, ["README.md"]);
  assertMatch(source.files.get("peaks-rd/SKILL.md")!.sha256, /^[0-9a-f]{64}$/);
});

Deno.test("an invalid tree is refused with every problem listed (exit 3)", async () => {
  await using dir = await tempDir();
  const src = join(dir.path, "src");
  await writeTree(src, {
    "good/SKILL.md": skillMd("good"),
    "no-skill-md/notes.md": "x",
    "Bad_Name/SKILL.md": skillMd("Bad_Name"),
    "wrong-name/SKILL.md": skillMd("other-name"),
  });
  await Deno.symlink(join(dir.path, "elsewhere"), join(src, "good", "link.md"));
  const error = await errorOf(
    readSkillsSource(fakeCtx({ cwd: dir.path, env: { PEAKS_SKILLS_DIR: src } })),
  );
  assertEquals(error.code, "SKILLS_SOURCE_INVALID");
  assertEquals(error.exit, 3);
  const issues = error.data.issues as { path: string; message: string }[];
  assertEquals(issues.map((i) => i.path).sort(), [
    "Bad_Name",
    "good/link.md",
    "no-skill-md",
    "wrong-name/SKILL.md",
  ]);
});
