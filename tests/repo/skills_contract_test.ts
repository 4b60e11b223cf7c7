import { assert, assertEquals, assertMatch } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { checkSkillFile } from "../../lib/skills/_frontmatter.ts";
import { sectionFor } from "../../lib/dispatch/role_section.ts";
import { REPO } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { checkSkillsTree, commandMentions, markdownFiles } from "../support/skill_contract.ts";

const SKILLS = join(REPO, "skills");
const EXPECTED = ["peaks-code", "peaks-prd", "peaks-qa", "peaks-rd", "peaks-txt", "peaks-ui"];

async function read(path: string): Promise<string> {
  return await Deno.readTextFile(join(SKILLS, path));
}

/** The text with every run of whitespace made one space, so phrases match across line wraps. */
async function prose(path: string): Promise<string> {
  return (await read(path)).replace(/\s+/g, " ");
}

Deno.test("the bundle has the orchestrator and the five roles, each with valid portable frontmatter", async () => {
  const folders = [...Deno.readDirSync(SKILLS)].filter((e) => e.isDirectory).map((e) => e.name)
    .sort();
  assertEquals(folders, EXPECTED);
  for (const folder of folders) {
    const { issues, frontmatter } = checkSkillFile(folder, await read(`${folder}/SKILL.md`));
    assertEquals(issues, [], folder);
    assertEquals(frontmatter?.name, folder);
    assert((frontmatter?.description ?? "").length <= 1024);
    assertMatch(frontmatter?.description ?? "", /Use when/, `${folder} says when to use it`);
  }
});

Deno.test("every peaks command in the skills parses against the command table; every cited file exists", async () => {
  const problems = await checkSkillsTree(SKILLS);
  assertEquals(problems, []);
  let count = 0;
  for (const file of await markdownFiles(SKILLS)) {
    count += commandMentions(file, await read(file)).length;
  }
  assert(count > 100, `only ${count} commands found: the extractor is broken`);
});

Deno.test("the contract check catches a flag that does not exist, a bad enum value and a missing reference", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "peaks-code", "references"), { recursive: true });
  await Deno.writeTextFile(
    join(dir.path, "peaks-code", "SKILL.md"),
    [
      "Run `peaks session info --active --json` first.",
      "```sh",
      "peaks sub-agent dispatch rd --request-id <rid> --no-such-flag --json",
      "peaks skill presence:set peaks-code --mode turbo --json",
      "peaks request transition <rid> --role rd --json",
      "peaks frobnicate --json",
      "```",
      "See [the runbook](references/runbook.md).",
    ].join("\n"),
  );
  const problems = await checkSkillsTree(dir.path);
  const found = problems.map((p) => `${p.line}:${p.problem.split(":")[0]}`);
  assertEquals(found, [
    "3:UNKNOWN_FLAG",
    "4:INVALID_FLAG_VALUE",
    "5:MISSING_FLAG",
    '6:no command "frobnicate --json"',
    "0:cited file does not exist",
  ]);
});

Deno.test("the skills state the obligations the CLI cannot enforce", async () => {
  const code = await prose("peaks-code/SKILL.md");
  const dispatch = await prose("peaks-code/references/sub-agent-dispatch.md");
  const swarm = await prose("peaks-code/references/swarm.md");
  const upgrade = await prose("peaks-code/references/upgrade-1x.md");
  const all = [code, dispatch, swarm].join("\n");
  assertMatch(code, /status header at the top of every turn/);
  assertMatch(code, /peaks skill presence --header/);
  assertMatch(all, /orchestratorVisibleHint` once/);
  assertMatch(all, /in ONE message/);
  assertMatch(
    dispatch,
    /git status --short --untracked-files=all git diff peaks sub-agent finalize --record <record> --outcome done --result-json/,
  );
  assertMatch(code, /Never run it for the user's own shell needs/);
  assertMatch(code, /peaks session start --skill peaks-code --json/);
  for (const choice of ["opt-in", "skip-this-session", "skip-forever"]) {
    assertMatch(
      upgrade,
      new RegExp(`peaks preferences set --key autoUpgradePrompt --value ${choice} --apply`),
    );
  }
  assertMatch(code, /Paste a whole SKILL.md into a sub-agent prompt/);
  for (const role of ["peaks-rd", "peaks-qa"]) {
    assertMatch(await read(`${role}/SKILL.md`), /at most two\s+levels/);
  }
  for (const role of EXPECTED.slice(1)) {
    const text = await prose(`${role}/SKILL.md`);
    assertMatch(text, /## When you run as a dispatched sub-agent/, role);
    for (const rule of [/presence:set/, /blocked/, /commit/i, /[Hh]eartbeat/, /return JSON/]) {
      assertMatch(text, rule, `${role}: ${rule}`);
    }
  }
});

Deno.test("the orchestrator checks that peaks is installed and names every install route", async () => {
  const code = await read("peaks-code/SKILL.md");
  const missing = code.indexOf("## When `peaks` is not installed");
  const startup = code.indexOf("## Startup");
  assert(missing !== -1 && missing < startup, "the check comes before Startup");
  const section = code.slice(missing, startup).replace(/\s+/g, " ");
  assertMatch(section, /Check once, before Startup: `peaks --version`/);
  for (
    const route of [
      /`curl -fsSL <releases>\/latest\/download\/install\.sh \| sh`/,
      /`irm <releases>\/latest\/download\/install\.ps1 \| iex`/,
      /`SHA256SUMS` and `install\.sh` from a release/,
      /`deno task install:peaks` in the clone/,
    ]
  ) {
    assertMatch(section, route);
  }
  const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
  assert("install:peaks" in config.tasks, "the skill names a task deno.json has");
});

Deno.test("the skills say when to slice the implementation and how to read a slice conflict", async () => {
  const rdSkill = await Deno.readTextFile(join(REPO, "skills", "peaks-rd", "SKILL.md"));
  const code = await prose("peaks-code/SKILL.md");
  const slices = await prose("peaks-code/references/slices.md");
  // In the sections the briefs carry: RD planning's (it writes the slices) and RD's (a slice).
  const planning = sectionFor(rdSkill, "rd-planning")!.body.replace(/\s+/g, " ");
  assertMatch(planning, /Slice only when the change splits into parts that touch different files/);
  assertMatch(planning, /rd\/slices-<rid>\.json/);
  assertMatch(planning, /peaks swarm slices --rid <rid> --json/);
  // A slice's brief carries its own section, with one instruction on the code review; RD's
  // plain brief carries none of the slice's text.
  const rd = sectionFor(rdSkill, "rd")!.body.replace(/\s+/g, " ");
  const slice = sectionFor(rdSkill, "rd slice")!.body.replace(/\s+/g, " ");
  assertMatch(rd, /write `rd\/code-review-<rid>\.md`/);
  assert(!/slice/i.test(rd), rd);
  assertMatch(slice, /Write no code review/);
  assert(!/code-review/.test(slice), slice);
  assertMatch(slice, /`worktree`/);
  assertMatch(code, /peaks swarm slices --rid <rid> --json/);
  assertMatch(code, /`SLICES_PENDING`/);
  assertMatch(slices, /SLICE_CONFLICT/);
  for (const choice of ["commands.keepMain", "commands.keepSlice", "commands.redo"]) {
    assertMatch(slices, new RegExp(choice.replace(".", "\\.")));
  }
  assertMatch(slices, /in ONE message/);
});

Deno.test("the UI brief carries the fidelity, login, browser and screenshot gates", async () => {
  const uiSkill = await read("peaks-ui/SKILL.md");
  // The section the UI sub-agent's brief carries (lib/dispatch/role_section.ts).
  const brief = sectionFor(uiSkill, "ui")!.body.replace(/\s+/g, " ");
  assertMatch(brief, /### Design source and fidelity/);
  const order = ["Figma", "screenshots attached to the PRD", "PRD's own visuals", "existing pages"]
    .map((source) => brief.indexOf(source));
  assert(order.every((at, i) => at !== -1 && (i === 0 || at > order[i - 1])), `${order}`);
  assertMatch(brief, /`## Fidelity` section names the source you followed/);
  assertMatch(brief, /deviates/);
  assertMatch(brief, /### Login gate/);
  assertMatch(brief, /login, a CAPTCHA, single sign-on \(SSO\) or a second factor \(MFA\)/);
  assertMatch(brief, /Never type, guess or ask for a password/);
  assertMatch(brief, /`blockedReason: "login-required"`/);
  assertMatch(brief, /Never store cookies, session tokens, storage state or personal data/);
  assertMatch(brief, /### Browser inspection/);
  assertMatch(brief, /peaks capabilities --json/);
  assertMatch(brief, /Sanitise what you keep/);
  assertMatch(brief, /`\.peaks\/_runtime\/<sid>\/qa\/screenshots\/`, never at the repository root/);
  assertMatch(brief, /git status --short --untracked-files=all/);
  const code = await prose("peaks-code/SKILL.md");
  assertMatch(code, /a `blocked` return with `login-required` \| ask the user to log in/);
  assertMatch(code, /never take credentials/);
  assertMatch(code, /once done, run `peaks sub-agent dispatch <role> --request-id <rid> --json`/);
  assertMatch(
    code,
    /a `blocked` return with `mcp-missing:<server>` \| run `peaks capabilities --json`/,
  );
});

Deno.test("every workflow mode the CLI accepts is in the mode table, 24h with its meaning", async () => {
  const { PRESENCE_MODES } = await import("../../lib/state/presence.ts");
  const code = await prose("peaks-code/SKILL.md");
  for (const mode of PRESENCE_MODES) assertMatch(code, new RegExp(`\\| \`${mode}\` +\\|`), mode);
  assertMatch(code, /`24h` decides like `full-auto`/);
  assertMatch(code, /leave a checkpoint at every phase change/);
});
