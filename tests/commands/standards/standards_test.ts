import { assert, assertEquals, assertMatch } from "@std/assert";
import { pool, runPeaks } from "../../support/cli.ts";
import { runActions } from "../../support/next_actions.ts";
import { exists, tempDir, writeText } from "../../support/temp.ts";
import { copyFixture, FIXTURE_NAMES, snapshot } from "../../support/fixtures.ts";
import {
  checkStandardsBlock,
  findStandardsBlock,
  STANDARDS_BEGIN,
} from "../../../lib/standards/block.ts";

function standards(which: "init" | "update", root: string, ...extra: string[]) {
  return runPeaks(["standards", which, "--project", root, ...extra, "--json"], { cwd: root });
}

/** The text outside the managed block. */
function outside(text: string): string {
  const found = findStandardsBlock(text);
  return found ? text.slice(0, found.start) + text.slice(found.end) : text;
}

Deno.test("the legacy fixture's CLAUDE.md names antd, Umi and Less and forbids replacing moment and class components", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("legacy-antd-umi", dir.path);
  const result = await standards("init", root, "--apply");
  assertEquals(result.code, 0, result.stdout + result.stderr);
  assertEquals(result.json.data.scan.source, "scanned", "standards ran the scan itself");
  assert(await exists(`${root}/.peaks/project-scan/project-scan.md`));
  const claude = await Deno.readTextFile(`${root}/CLAUDE.md`);
  const check = checkStandardsBlock(claude);
  assertEquals(check.namesStack, true);
  const block = check.block ?? "";
  assertMatch(block, /^- Component library: antd 4/m);
  assertMatch(block, /^- Build tool: Umi 3$/m);
  assertMatch(block, /^- CSS: Less$/m);
  assertMatch(block, /do not replace moment with dayjs, date-fns[^\n]* in modules you touch/);
  assertMatch(block, /class components[^\n]*do not convert them to function components/);
  assertMatch(block, /^## Conventions$/m);
  assertMatch(block, /^### Service layer$/m);
  assertMatch(block, /`queryUsers` \(src\/services\/user\.ts\)/);
  assertMatch(
    block,
    /^New code in a touched module keeps these patterns unless the PRD authorises modernisation\.$/m,
  );
  assertEquals(await Deno.readTextFile(`${root}/AGENTS.md`), claude);
  for (const file of ["README.md", "stack.md", "legacy-constraints.md", "conventions.md"]) {
    assert(await exists(`${root}/.peaks/standards/${file}`), file);
  }
});

for (const name of FIXTURE_NAMES) {
  Deno.test(`standards on ${name}: Gate G passes and a second update changes nothing`, async () => {
    await using dir = await tempDir();
    const root = await copyFixture(name, dir.path);
    const first = await standards("update", root, "--apply");
    assertEquals(first.code, 0, first.stdout + first.stderr);
    assertEquals(first.json.data.gateG.namesStack, true);
    const claude = await Deno.readTextFile(`${root}/CLAUDE.md`);
    assertEquals(checkStandardsBlock(claude).namesStack, true);
    const before = await snapshot(root);
    const second = await standards("update", root, "--apply");
    assertEquals(second.code, 0, second.stderr);
    assertEquals(await snapshot(root), before);
    for (const file of second.json.data.files) {
      assert(["existing", "skipped"].includes(file.status), `${file.path}: ${file.status}`);
    }
    assertEquals(second.json.nextActions, []);
  });
}

Deno.test("a user's CLAUDE.md stays byte-identical outside the block, across refreshes", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("greenfield-react-vite", dir.path);
  const mine = "# Orbit\r\n\r\nUse pnpm. Never commit .env files.  \r\nTabs, not spaces.";
  await writeText(`${root}/CLAUDE.md`, mine);
  const init = await standards("init", root, "--apply");
  assertEquals(init.code, 0, init.stderr);
  const claudeReport = init.json.data.files.find((f: { path: string }) => f.path === "CLAUDE.md");
  assertEquals(claudeReport, {
    path: "CLAUDE.md",
    before: "existing",
    status: "appended",
    action: "append",
  });
  const afterInit = await Deno.readTextFile(`${root}/CLAUDE.md`);
  assert(afterInit.startsWith(mine));
  assertEquals(outside(afterInit), `${mine}\r\n\r\n\r\n`);

  // The user adds notes after the block; the stack changes; update refreshes only the block.
  const withNotes = `${afterInit}\r\n## Later notes\r\nAsk before adding deps.\r\n`;
  await Deno.writeTextFile(`${root}/CLAUDE.md`, withNotes);
  const pkg = JSON.parse(await Deno.readTextFile(`${root}/package.json`));
  pkg.dependencies["@mantine/core"] = "^7.13.2";
  await Deno.writeTextFile(`${root}/package.json`, JSON.stringify(pkg, null, 2));
  await runPeaks(["scan", "archetype", "--project", root], { cwd: root });
  const update = await standards("update", root, "--apply");
  assertEquals(update.code, 0, update.stderr);
  const refreshed = await Deno.readTextFile(`${root}/CLAUDE.md`);
  assertEquals(outside(refreshed), outside(withNotes));
  assertMatch(refreshed, /- Component library: Mantine\r\n/);
  const update2 = await standards("update", root, "--apply");
  assertEquals(update2.code, 0);
  assertEquals(await Deno.readTextFile(`${root}/CLAUDE.md`), refreshed);
});

Deno.test("dry run is the default: statuses are reported and nothing is written", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("next-fullstack", dir.path);
  await writeText(`${root}/.claude/rules/testing.md`, "# Testing\nUse jest.\n");
  const before = await snapshot(root);
  const result = await standards("init", root);
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.mode, "dry-run");
  assertEquals(await snapshot(root), before);
  const byPath = Object.fromEntries(
    result.json.data.files.map((f: { path: string; status: string }) => [f.path, f.status]),
  );
  assertEquals(byPath["CLAUDE.md"], "planned");
  assertEquals(byPath[".peaks/standards/conventions.md"], "skipped");
  assertEquals(result.json.data.rules, [
    {
      path: ".claude/rules/testing.md",
      status: "existing",
      access: "read-only",
      peaksManaged: false,
    },
  ]);
  assertEquals(result.json.nextActions, [
    `peaks standards init --project ${root} --apply --json`,
  ]);
  const applied = await runActions(result.json.nextActions, { cwd: root });
  assertEquals(applied[0].code, 0);
  assertEquals(
    await Deno.readTextFile(`${root}/.claude/rules/testing.md`),
    "# Testing\nUse jest.\n",
  );
});

Deno.test("init leaves an existing peaks block alone; update refreshes it", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("python-service", dir.path);
  await standards("init", root, "--apply");
  await Deno.writeTextFile(
    `${root}/pyproject.toml`,
    (await Deno.readTextFile(`${root}/pyproject.toml`)).replace("fastapi", "django"),
  );
  await runPeaks(["scan", "archetype", "--project", root], { cwd: root });
  const init = await standards("init", root);
  const claude = init.json.data.files.find((f: { path: string }) => f.path === "CLAUDE.md");
  assertEquals(claude.status, "skipped");
  const update = await standards("update", root);
  assertEquals(
    update.json.data.files.find((f: { path: string }) => f.path === "CLAUDE.md").status,
    "planned",
  );
});

Deno.test("a foreign managed block is review-only: exit 3 and nothing written", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("greenfield-react-vite", dir.path);
  const foreign =
    `# Rules\n\n${STANDARDS_BEGIN}\n## Stack\n- Angular\n<!-- peaks:standards:end -->\n`;
  await writeText(`${root}/CLAUDE.md`, foreign);
  const result = await standards("update", root, "--apply");
  assertEquals(result.code, 3);
  assertEquals(result.json.code, "STANDARDS_REVIEW_ONLY");
  const files = result.json.data.files;
  assertEquals(files[0].path, "CLAUDE.md");
  assertEquals(files[0].status, "review-only");
  assertEquals(await Deno.readTextFile(`${root}/CLAUDE.md`), foreign);
  assertEquals(await exists(`${root}/AGENTS.md`), false, "nothing else written either");
  const rerun = await runActions(result.json.nextActions, { cwd: root });
  assertEquals(rerun[0].code, 3);

  // A peaks block edited by hand is foreign too.
  await Deno.remove(`${root}/CLAUDE.md`);
  await standards("update", root, "--apply");
  const ours = await Deno.readTextFile(`${root}/CLAUDE.md`);
  await Deno.writeTextFile(`${root}/CLAUDE.md`, ours.replace("Vite 5", "Webpack"));
  const edited = await standards("update", root);
  assertEquals(edited.code, 3);
  assertMatch(edited.json.data.files[0].reason, /edited by hand/);
});

Deno.test("standards never write through a symlink or out of the project", async () => {
  await using outside = await tempDir();
  await using dir = await tempDir();
  const root = await copyFixture("greenfield-react-vite", dir.path);
  await writeText(`${outside.path}/CLAUDE.md`, "theirs\n");
  await Deno.symlink(`${outside.path}/CLAUDE.md`, `${root}/CLAUDE.md`);
  const result = await standards("init", root, "--apply");
  assertEquals(result.code, 3);
  assertEquals(result.json.data.files[0].status, "review-only");
  assertMatch(result.json.data.files[0].reason, /symlink/);
  assertEquals(await Deno.readTextFile(`${outside.path}/CLAUDE.md`), "theirs\n");

  await Deno.remove(`${root}/CLAUDE.md`);
  await Deno.mkdir(`${outside.path}/standards`);
  await Deno.mkdir(`${root}/.peaks`);
  await Deno.symlink(`${outside.path}/standards`, `${root}/.peaks/standards`);
  const escaped = await standards("init", root, "--apply");
  assertEquals(escaped.code, 3);
  const stack = escaped.json.data.files.find((f: { path: string }) =>
    f.path === ".peaks/standards/stack.md"
  );
  assertEquals(stack.status, "review-only");
  assertEquals([...Deno.readDirSync(`${outside.path}/standards`)], []);
});

Deno.test("a legacy project whose conventions are all TO COMPLETE is refused as generic", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("legacy-antd-umi", dir.path);
  await runPeaks(["workspace", "init", "--project", root], { cwd: root });
  const sx = await runPeaks(["scan", "existing-system", "--project", root, "--json"], {
    cwd: root,
  });
  const path = `${root}/${sx.json.data.path}`;
  await Deno.writeTextFile(
    path,
    "# Existing system\n\n<!-- peaks:existing-system:begin -->\n## Naming\n\n- TO COMPLETE: naming.\n<!-- peaks:existing-system:end -->\n",
  );
  const result = await standards("update", root, "--apply");
  assertEquals(result.code, 3);
  assertEquals(result.json.code, "STANDARDS_GENERIC");
  assertEquals(await exists(`${root}/CLAUDE.md`), false);
  // Its nextActions refresh the extraction; after that the standards go through.
  const actions = await runActions(result.json.nextActions, { cwd: root });
  assertEquals(actions[0].code, 0, actions[0].stderr);
  assertEquals(actions[1].code, 0, actions[1].stdout);
});

Deno.test("conventions completed by the skill reach CLAUDE.md", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("legacy-antd-umi", dir.path);
  await runPeaks(["workspace", "init", "--project", root], { cwd: root });
  const sx = await runPeaks(["scan", "existing-system", "--project", root, "--json"], {
    cwd: root,
  });
  const path = `${root}/${sx.json.data.path}`;
  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(
    path,
    text.replace(
      /- TO COMPLETE: how failed requests[^\n]*/,
      "- Failed requests raise an antd notification from the errorHandler in src/utils/request.ts.",
    ),
  );
  const result = await standards("init", root, "--apply");
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.conventions.source, sx.json.data.path);
  const block = checkStandardsBlock(await Deno.readTextFile(`${root}/CLAUDE.md`)).block ?? "";
  assertMatch(block, /^### Error handling$/m);
  assertMatch(block, /errorHandler in src\/utils\/request\.ts/);
  assert(!block.includes("TO COMPLETE"));
});

Deno.test("--apply with --dry-run is a usage error", async () => {
  await using dir = await tempDir();
  const result = await standards("init", dir.path, "--apply", "--dry-run");
  assertEquals(result.code, 2);
  assertEquals(result.json.code, "CONFLICTING_FLAGS");
});

Deno.test("an empty project gets honest 'unknown' stack bullets that do not pass Gate G", async () => {
  await using dir = await tempDir();
  const result = await standards("init", dir.path);
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.archetype, "greenfield");
  assertEquals(result.json.data.gateG.namesStack, false);
});

Deno.test("many concurrent update --apply runs leave exactly one valid block", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("pnpm-monorepo", dir.path);
  await writeText(`${root}/CLAUDE.md`, "# Lumen\n\nOur notes.\n");
  const results = await pool(16, 16, () => standards("update", root, "--apply"));
  for (const r of results) assertEquals(r.code, 0, r.stdout + r.stderr);
  const claude = await Deno.readTextFile(`${root}/CLAUDE.md`);
  assertEquals(claude.split(STANDARDS_BEGIN).length, 2, "one block");
  assert(claude.startsWith("# Lumen\n\nOur notes.\n\n<!-- peaks:standards:begin -->"));
  assertEquals(checkStandardsBlock(claude).namesStack, true);
  const appended = results.filter((r) =>
    r.json.data.files.find((f: { path: string }) => f.path === "CLAUDE.md").status === "appended"
  );
  assertEquals(appended.length, 1, "one process wrote, the others found it up to date");
});

Deno.test("a broken project-scan.json is RECORD_UNREADABLE with a repair that works", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("python-service", dir.path);
  await runPeaks(["scan", "archetype", "--project", root], { cwd: root });
  await Deno.writeTextFile(`${root}/.peaks/project-scan/project-scan.json`, '{"version": 1, "arch');
  const broken = await standards("update", root);
  assertEquals(broken.code, 1);
  assertEquals(broken.json.code, "RECORD_UNREADABLE");
  const [repair] = await runActions(broken.json.nextActions, { cwd: root });
  assertEquals(repair.code, 0, repair.stderr);
  assertEquals((await standards("update", root)).code, 0);
});
