import { assertEquals, assertMatch } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runInProcess } from "../support/ctx.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { skillMd, standardTree, writeTree } from "../support/skill_tree.ts";

async function setup(root: string) {
  const src = join(root, "src");
  const project = join(root, "project");
  const home = join(root, "home");
  await standardTree(src);
  await Deno.mkdir(project);
  await Deno.mkdir(home);
  const run = (args: string[], env: Record<string, string> = {}) =>
    runInProcess([...args, "--project", project, "--json"], {
      cwd: project,
      env: { PEAKS_SKILLS_DIR: src, HOME: home, ...env },
    });
  return { src, project, home, run };
}

Deno.test("verify passes when every installed copy matches the source and the manifest", async () => {
  await using dir = await tempDir();
  const { run } = await setup(dir.path);
  await run(["skills", "install", "--agent", "all"]);
  await run(["skills", "install", "--scope", "user"]);
  const result = await run(["skills", "verify"]);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.drift, []);
  assertEquals(
    result.json.data.checked.map((c: { scope: string; dir: string }) => `${c.scope} ${c.dir}`),
    [
      "project .claude/skills",
      "project .agents/skills",
      "project .cursor/skills",
      "project .lingma/skills",
      "project .qoder/skills",
      "project .trae/skills",
      "user ~/.claude/skills",
    ],
  );
});

Deno.test("verify reports modified, missing and outdated files with exit 3 and runnable fixes", async () => {
  await using dir = await tempDir();
  const { src, project, run } = await setup(dir.path);
  await run(["skills", "install"]);
  const skills = join(project, ".claude", "skills");
  await Deno.writeTextFile(join(skills, "peaks-code", "SKILL.md"), "edited\n");
  await Deno.remove(join(skills, "peaks-code", "references", "runbook.md"));
  await writeTree(src, {
    "peaks-rd/SKILL.md": skillMd("peaks-rd", "New text."),
    "peaks-rd/references/new.md": "new\n",
  });
  const result = await run(["skills", "verify"]);
  assertEquals(result.code, 3);
  assertEquals(result.json.code, "SKILLS_DRIFT");
  const states = Object.fromEntries(
    result.json.data.drift.map((d: { path: string; state: string }) => [d.path, d.state]),
  );
  assertEquals(states, {
    "peaks-code/SKILL.md": "modified",
    "peaks-code/references/runbook.md": "missing",
    "peaks-rd/SKILL.md": "outdated",
    "peaks-rd/references/new.md": "not-installed",
  });
  assertEquals(result.json.nextActions, [
    `peaks skills install --agent claude-code --scope project --project ${project} --json`,
  ]);
  // The fix brings every untouched file in line; only the edited one still drifts.
  await run(["skills", "install"]);
  const after = await run(["skills", "verify"]);
  assertEquals(after.json.data.drift.map((d: { path: string }) => d.path), ["peaks-code/SKILL.md"]);
});

Deno.test("nothing installed: SKILLS_NOT_INSTALLED, or drift when the agent is named", async () => {
  await using dir = await tempDir();
  const { run } = await setup(dir.path);
  const none = await run(["skills", "verify"]);
  assertEquals(none.code, 3);
  assertEquals(none.json.code, "SKILLS_NOT_INSTALLED");
  await run(["skills", "install", "--agent", "trae"]);
  assertEquals((await run(["skills", "verify"])).code, 0);
  const named = await run(["skills", "verify", "--agent", "codex", "--scope", "project"]);
  assertEquals(named.code, 3);
  assertEquals(named.json.data.drift, [{
    scope: "project",
    dir: ".agents/skills",
    agents: ["codex"],
    path: ".",
    state: "not-installed",
  }]);
});

Deno.test("verify refuses an invalid source tree (exit 3)", async () => {
  await using dir = await tempDir();
  const { src, run } = await setup(dir.path);
  await run(["skills", "install"]);
  await writeTree(src, { "peaks-rd/SKILL.md": "---\nname: peaks-rd\n---\n" });
  const result = await run(["skills", "verify"]);
  assertEquals(result.code, 3);
  assertEquals(result.json.code, "SKILLS_SOURCE_INVALID");
  assertMatch(result.json.message, /description/);
});

Deno.test("list shows states per agent and scope, and folders that are not peaks'", async () => {
  await using dir = await tempDir();
  const { project, run } = await setup(dir.path);
  await run(["skills", "install", "--agent", "all"]);
  await writeText(join(project, ".agents", "skills", "mine", "SKILL.md"), "x\n");
  await Deno.writeTextFile(join(project, ".trae", "skills", "peaks-rd", "SKILL.md"), "edited\n");
  const result = await run(["skills", "list", "--scope", "project"]);
  assertEquals(result.code, 0, result.stdout);
  const byAgent = Object.fromEntries(
    result.json.data.agents.map((
      a: { agent: string; skills: { name: string; state: string }[] },
    ) => [
      a.agent,
      a.skills.map((s) => `${s.name}:${s.state}`).join(" "),
    ]),
  );
  assertEquals(byAgent, {
    "claude-code": "peaks-code:ok peaks-rd:ok",
    codex: "peaks-code:ok peaks-rd:ok",
    copilot: "peaks-code:ok peaks-rd:ok",
    cursor: "peaks-code:ok peaks-rd:ok",
    gemini: "peaks-code:ok peaks-rd:ok",
    lingma: "peaks-code:ok peaks-rd:ok",
    opencode: "peaks-code:ok peaks-rd:ok",
    qoder: "peaks-code:ok peaks-rd:ok",
    qwen: "peaks-code:ok peaks-rd:ok",
    trae: "peaks-code:ok peaks-rd:modified",
  });
  assertEquals(result.json.data.targets[1].foreign, ["mine"]);
});

Deno.test("list still works without a source, with a warning", async () => {
  await using dir = await tempDir();
  const { project, run } = await setup(dir.path);
  await run(["skills", "install"]);
  const result = await run(["skills", "list"], { PEAKS_SKILLS_DIR: join(project, "nowhere") });
  assertEquals(result.code, 0);
  assertEquals(result.json.data.source, null);
  assertEquals(result.json.warnings[0].code, "SKILLS_SOURCE_NOT_FOUND");
  assertEquals(result.json.data.targets[0].skills.map((s: { state: string }) => s.state), [
    "ok",
    "ok",
  ]);
});
