import { assert, assertEquals, assertMatch } from "@std/assert";
import { join } from "../../../lib/infra/std.ts";
import { pool, runPeaks } from "../../support/cli.ts";
import { runNextAction } from "../../support/next_actions.ts";
import { exists, tempDir, writeText } from "../../support/temp.ts";
import { skillMd, snapshot, standardTree } from "../../support/skill_tree.ts";

interface Setup {
  project: string;
  env: Record<string, string>;
  home: string;
}

async function setup(root: string): Promise<Setup> {
  const src = join(root, "src");
  const project = join(root, "project");
  const home = join(root, "home");
  await standardTree(src);
  await Deno.mkdir(project);
  await Deno.mkdir(home);
  return { project, home, env: { PEAKS_SKILLS_DIR: src } };
}

function peaks(s: Setup, args: string[]) {
  return runPeaks([...args, "--json"], { cwd: s.project, env: s.env, home: s.home });
}

/** Paths with contents and modification times: a rerun that rewrote a file would show. */
async function stamped(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [rel, content] of Object.entries(await snapshot(root))) {
    const info = await Deno.lstat(join(root, ...rel.split("/").filter(Boolean)));
    out[rel] = `${content}@${info.mtime?.getTime()}`;
  }
  return out;
}

Deno.test("acceptance: install for every agent, rerun, edit, reinstall, uninstall", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);

  const first = await peaks(s, ["skills", "install", "--agent", "all", "--scope", "project"]);
  assertEquals(first.code, 0, first.stderr);
  for (const folder of [".claude", ".agents", ".cursor", ".lingma", ".qoder", ".trae"]) {
    assertEquals(
      await Deno.readTextFile(join(s.project, folder, "skills", "peaks-code", "SKILL.md")),
      skillMd("peaks-code"),
    );
  }
  const byAgent = Object.fromEntries(
    first.json.data.agents.map((a: { agent: string; dir: string }) => [a.agent, a.dir]),
  );
  assertEquals(byAgent, {
    "claude-code": ".claude/skills",
    codex: ".agents/skills",
    copilot: ".agents/skills",
    cursor: ".cursor/skills",
    gemini: ".agents/skills",
    lingma: ".lingma/skills",
    opencode: ".agents/skills",
    qoder: ".qoder/skills",
    qwen: ".agents/skills",
    trae: ".trae/skills",
  });
  assertEquals(first.json.data.source.kind, "env");
  for (const action of first.json.nextActions) {
    const next = await runNextAction(action, { cwd: s.project, env: s.env, home: s.home });
    assertEquals(next.code, 0, `${action}: ${next.stdout}${next.stderr}`);
  }

  const before = await stamped(s.project);
  const again = await peaks(s, ["skills", "install", "--agent", "all", "--scope", "project"]);
  assertEquals(again.code, 0);
  assertEquals(again.json.data.changed, false);
  assertEquals(await stamped(s.project), before);

  const edited = join(s.project, ".claude", "skills", "peaks-code", "SKILL.md");
  await Deno.writeTextFile(edited, "my own words\n");
  await writeText(join(s.project, ".agents", "skills", "my-skill", "SKILL.md"), "mine\n");
  const third = await peaks(s, ["skills", "install", "--agent", "all", "--scope", "project"]);
  assertEquals(third.code, 0);
  assertEquals(third.json.warnings[0].code, "USER_MODIFIED_KEPT");
  assertMatch(third.json.warnings[0].message, /peaks-code\/SKILL\.md/);
  assertEquals(await Deno.readTextFile(edited), "my own words\n");
  for (const action of third.json.nextActions) {
    const next = await runNextAction(action, { cwd: s.project, env: s.env, home: s.home });
    assertEquals(next.code, 0, `${action}: ${next.stdout}${next.stderr}`);
  }

  const removed = await peaks(s, ["skills", "uninstall", "--agent", "all", "--scope", "project"]);
  assertEquals(removed.code, 0, removed.stderr);
  const left = await snapshot(s.project);
  assertEquals(left[".claude/skills/peaks-code/SKILL.md"], "my own words\n");
  assertEquals(left[".agents/skills/my-skill/SKILL.md"], "mine\n");
  assertEquals(Object.keys(left).sort(), [
    ".agents/",
    ".agents/skills/",
    ".agents/skills/my-skill/",
    ".agents/skills/my-skill/SKILL.md",
    ".claude/",
    ".claude/skills/",
    ".claude/skills/.peaks-skills-manifest.json",
    ".claude/skills/peaks-code/",
    ".claude/skills/peaks-code/SKILL.md",
  ]);
  for (const action of removed.json.nextActions) {
    const next = await runNextAction(action, { cwd: s.project, env: s.env, home: s.home });
    assertEquals(next.code, 0, `${action}: ${next.stdout}${next.stderr}`);
  }
});

Deno.test("an empty skills tree is a clear SKILLS_SOURCE_EMPTY (exit 1), human and JSON", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  const empty = join(dir.path, "empty");
  await Deno.mkdir(empty);
  s.env.PEAKS_SKILLS_DIR = empty;
  const json = await peaks(s, ["skills", "install"]);
  assertEquals(json.code, 1);
  assertEquals(json.json.code, "SKILLS_SOURCE_EMPTY");
  const human = await runPeaks(["skills", "install"], { cwd: s.project, env: s.env, home: s.home });
  assertEquals(human.code, 1);
  assertEquals(human.stdout, "");
  assertMatch(human.stderr, /^error SKILLS_SOURCE_EMPTY: .*holds no skills/);
  assertEquals(await snapshot(s.project), {});
});

Deno.test("concurrent installs and uninstalls never corrupt a skills folder", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  const installs = await pool(
    16,
    16,
    () => peaks(s, ["skills", "install", "--agent", "all", "--scope", "project"]),
  );
  assertEquals(installs.filter((r) => r.code !== 0).map((r) => r.stdout + r.stderr), []);
  // Each file is created by exactly one of them; the others find it in place.
  const created: Record<string, number> = {};
  for (const result of installs) {
    for (const target of result.json.data.targets) {
      created[target.dir] = (created[target.dir] ?? 0) + (target.counts.create ?? 0);
    }
  }
  assertEquals(created, {
    ".claude/skills": 3,
    ".agents/skills": 3,
    ".cursor/skills": 3,
    ".lingma/skills": 3,
    ".qoder/skills": 3,
    ".trae/skills": 3,
  });
  assertEquals((await peaks(s, ["skills", "verify"])).code, 0);

  const mixed = await pool(
    16,
    16,
    (i) => peaks(s, ["skills", i % 2 ? "uninstall" : "install", "--agent", "all"]),
  );
  assertEquals(mixed.filter((r) => r.code !== 0).map((r) => r.stdout + r.stderr), []);
  const final = await peaks(s, ["skills", "install", "--agent", "all"]);
  assertEquals(final.code, 0);
  assertEquals((await peaks(s, ["skills", "verify"])).code, 0);
  const files = Object.keys(await snapshot(s.project)).filter((p) => !p.endsWith("/"));
  assertEquals(files.length, 24, files.join("\n"));
  assert(!files.some((p) => p.includes(".lock") || p.endsWith(".tmp")), files.join("\n"));
  assert(await exists(join(s.project, ".trae", "skills", ".peaks-skills-manifest.json")));
});

Deno.test("skills --help documents the flags, defaults and examples", async () => {
  await using dir = await tempDir();
  const help = await runPeaks(["skills", "install", "--help"], { cwd: dir.path });
  assertEquals(help.code, 0);
  assertMatch(
    help.stdout,
    /--agent <claude-code\|codex\|copilot\|cursor\|gemini\|lingma\|opencode\|qoder\|qwen\|trae\|all>/,
  );
  assertMatch(help.stdout, /default: claude-code/);
  assertMatch(help.stdout, /--force/);
  assertMatch(help.stdout, /Examples:\n {2}peaks skills install --json/);
  const group = await runPeaks(["skills", "--help"], { cwd: dir.path });
  assertMatch(group.stdout, /skills verify/);
});

Deno.test("install warns, naming the folder, when the current folder is not a project", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  const bare = await peaks(s, ["skills", "install", "--agent", "claude-code"]);
  assertEquals(bare.code, 0, bare.stderr);
  const warning = bare.json.warnings.find((w: { code: string }) => w.code === "NOT_A_PROJECT");
  assertMatch(warning.message, /is not a project .*\.claude[\\/]skills.*--project <path>/);

  const human = await runPeaks(["skills", "install", "--agent", "claude-code"], {
    cwd: s.project,
    env: s.env,
    home: s.home,
  });
  assertMatch(human.stderr + human.stdout, /warning NOT_A_PROJECT: /);

  await writeText(join(s.project, "package.json"), "{}");
  const project = await peaks(s, ["skills", "install", "--agent", "claude-code"]);
  assertEquals(project.json.warnings, []);
  await Deno.remove(join(s.project, "package.json"));
  const user = await peaks(s, ["skills", "install", "--agent", "claude-code", "--scope", "user"]);
  assertEquals(user.json.warnings, []);
});
