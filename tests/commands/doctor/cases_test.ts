/**
 * The smaller doctor checks one by one: stray files at the root, Gate G,
 * the status line, the workspace and its session, the gitignore block.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../../lib/infra/std.ts";
import { GITIGNORE_PATTERNS } from "../../../lib/workspace/skeleton.ts";
import { snapshot } from "../../support/skill_tree.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import {
  bareProject,
  doctor,
  finding,
  git,
  healthyProject,
  ids,
  peaks,
  runFix,
} from "../../support/doctor.ts";

Deno.test("stray root files: only untracked, unignored screenshots, snapshots, reports and mock servers", async () => {
  await using dir = await tempDir();
  const p = await healthyProject(dir.path);
  await writeText(join(p.root, "logo.png"), "tracked image");
  await git(p.root, "add", "logo.png");
  await git(p.root, "commit", "-q", "-m", "logo");
  await writeText(join(p.root, ".gitignore"), "playwright-report/\n");
  await writeText(join(p.root, "playwright-report", "index.html"), "ignored report");
  await writeText(join(p.root, "login step 1.png"), "screenshot");
  await writeText(join(p.root, "test-results", "run", "trace.zip"), "trace");
  await writeText(join(p.root, "mock-server.js"), "server");
  await writeText(join(p.root, "notes.md"), "not a workflow output");
  await writeText(join(p.root, "src", "deep.png"), "below the root: not looked at");
  await Deno.symlink(join(p.root, "logo.png"), join(p.root, "link.png"));

  const before = await snapshot(dir.path);
  const result = await doctor(p);
  assertEquals(await snapshot(dir.path), before, "doctor deletes and writes nothing");
  assertEquals(result.code, 0);
  assertEquals(ids(result), ["root.stray-files"]);
  const stray = finding(result, "root.stray-files");
  assertEquals(stray.paths, ["login step 1.png", "mock-server.js", "test-results/"]);
  assertEquals([stray.severity, stray.fix], ["warning", null]);
  assertStringIncludes(stray.detail, "git status --short -- 'login step 1.png' mock-server.js");
  assertEquals(result.json.nextActions, []);

  // Outside a git checkout the project's own files cannot be told apart: skipped, not guessed.
  await using other = await tempDir();
  const plain = await bareProject(other.path);
  await writeText(join(plain.root, "shot.png"), "screenshot");
  const skipped = await doctor(plain);
  assert(!ids(skipped).includes("root.stray-files"));
  const check = skipped.json.data.checks.find((c: { name: string }) => c.name === "root-files");
  assertEquals(check.status, "skipped");
});

Deno.test("without git on PATH: an info finding, and stray files are not guessed", async () => {
  await using dir = await tempDir();
  const p = await bareProject(dir.path, { git: true });
  await writeText(join(p.root, "shot.png"), "screenshot");
  const result = await doctor(p, { PATH: join(dir.path, "empty-path") });
  assertEquals(result.code, 0);
  assertEquals(finding(result, "runtime.git-unavailable").severity, "info");
  assert(!ids(result).includes("root.stray-files"));
  assertEquals(result.json.data.facts.runtime.permissions.run.granted, []);
});

Deno.test("Gate G: a CLAUDE.md without the block, then a block that names no stack", async () => {
  await using dir = await tempDir();
  const p = await healthyProject(dir.path);
  const claude = join(p.root, "CLAUDE.md");
  await Deno.writeTextFile(claude, "# Our notes\n\nKeep this.\n");
  const missing = await doctor(p);
  const block = finding(missing, "standards.block-missing");
  assertEquals(block.fix, `peaks standards init --apply --project ${p.root}`);
  // A nextAction answers in the caller's output mode.
  assertEquals(missing.json.nextActions, [`${block.fix} --json`]);
  assertEquals((await runFix(p, block.fix!)).code, 0);
  assertEquals(ids(await doctor(p)), []);
  assert((await Deno.readTextFile(claude)).startsWith("# Our notes\n\nKeep this.\n"));

  // An empty project's block names no stack; no command can fix that until there is code.
  await using empty = await tempDir();
  const q = await bareProject(empty.path, { fixture: false });
  await peaks(q, "workspace", "init");
  await peaks(q, "standards", "init", "--apply");
  const noStack = finding(await doctor(q), "standards.no-stack");
  assertEquals(noStack.fix, null);
  assertStringIncludes(noStack.detail, `peaks scan archetype --project ${q.root}`);
  // Once the project has code and a fresh scan names the stack, update --apply is the fix.
  await Deno.copyFile(join(p.root, "package.json"), join(q.root, "package.json"));
  await peaks(q, "scan", "archetype");
  const refreshable = finding(await doctor(q), "standards.no-stack");
  assertEquals(refreshable.fix, `peaks standards update --apply --project ${q.root}`);
  assertEquals((await runFix(q, refreshable.fix!)).code, 0);
  assert(!ids(await doctor(q)).some((id) => id.startsWith("standards.")));
});

Deno.test("status line: missing, foreign, broken settings, and the user's own settings", async () => {
  await using dir = await tempDir();
  const p = await healthyProject(dir.path);
  const settings = join(p.root, ".claude", "settings.json");
  await Deno.writeTextFile(settings, "{}\n");
  const missing = finding(await doctor(p), "statusline.missing");
  assertEquals([missing.severity, missing.fix], [
    "info",
    `peaks statusline install --project ${p.root}`,
  ]);

  // A peaks status line in the user's settings counts; a local foreign one overrides both.
  await writeText(
    join(p.home, ".claude", "settings.json"),
    '{\n  // the user\'s\n  "statusLine": {"type": "command", "command": "/opt/bin/peaks statusline render"}\n}\n',
  );
  assertEquals(ids(await doctor(p)), []);
  const local = join(p.root, ".claude", "settings.local.json");
  await Deno.writeTextFile(local, '{"statusLine": {"type": "command", "command": "my-line"}}');
  const foreign = finding(await doctor(p), "statusline.foreign");
  assertEquals([foreign.severity, foreign.fix, foreign.paths], [
    "info",
    null,
    [".claude/settings.local.json"],
  ]);

  await Deno.writeTextFile(local, '{"statusLine": ');
  const broken = await doctor(p);
  assertEquals(broken.code, 0);
  const invalid = finding(broken, "statusline.settings-invalid");
  assertEquals([invalid.severity, invalid.fix], ["warning", null]);
  assertEquals(ids(broken), ["statusline.settings-invalid"], "the next file still decides");

  await Deno.remove(local);
  await Deno.writeTextFile(join(p.home, ".claude", "settings.json"), "{}");
  assertEquals((await runFix(p, missing.fix!)).code, 0);
  assertEquals(ids(await doctor(p)), []);
});

Deno.test("workspace: none, an unreadable binding, a session without metadata", async () => {
  await using dir = await tempDir();
  const p = await bareProject(dir.path, { git: true });
  const none = await doctor(p);
  const workspace = finding(none, "workspace.missing");
  assertEquals(workspace.fix, `peaks workspace init --project ${p.root}`);
  for (const name of ["gitignore", "records", "detached"]) {
    const check = none.json.data.checks.find((c: { name: string }) => c.name === name);
    assertEquals(check.status, "skipped", name);
  }
  assertEquals((await runFix(p, workspace.fix!)).code, 0);
  assert(!ids(await doctor(p)).some((id) => id.startsWith("workspace.")));

  const binding = join(p.root, ".peaks", "_runtime", "session.json");
  const sid = JSON.parse(await Deno.readTextFile(binding)).sessionId;
  await Deno.writeTextFile(binding, "not json");
  const broken = await doctor(p);
  assertEquals(broken.code, 1);
  const unreadable = finding(broken, "workspace.unreadable");
  assertEquals(unreadable.fix, `mv ${binding} ${binding}.corrupt`);
  assertEquals((await runFix(p, unreadable.fix!)).code, 0);
  const unbound = finding(await doctor(p), "workspace.no-session");
  assertEquals((await runFix(p, unbound.fix!)).code, 0);
  assert(!ids(await doctor(p)).some((id) => id.startsWith("workspace.")));

  // A bound session whose metadata is gone is recreated under the same id.
  const current = JSON.parse(await Deno.readTextFile(binding)).sessionId;
  assert(current !== sid);
  await Deno.remove(join(p.root, ".peaks", "_runtime", current, "session.json"));
  const gone = finding(await doctor(p), "workspace.session-missing");
  assertEquals(gone.fix, `peaks workspace init --project ${p.root} --session-id ${current}`);
  assertEquals((await runFix(p, gone.fix!)).code, 0);
  assert(!ids(await doctor(p)).some((id) => id.startsWith("workspace.")));
  assertEquals(JSON.parse(await Deno.readTextFile(binding)).sessionId, current);
});

Deno.test("gitignore: a missing file and an edited block are repaired by workspace init", async () => {
  await using dir = await tempDir();
  const p = await healthyProject(dir.path);
  const gitignore = join(p.root, ".peaks", ".gitignore");
  const written = await Deno.readTextFile(gitignore);
  await Deno.writeTextFile(gitignore, written.replace(`${GITIGNORE_PATTERNS[0]}\n`, ""));
  const outdated = finding(await doctor(p), "gitignore.block-outdated");
  assertEquals((await runFix(p, outdated.fix!)).code, 0);
  assertEquals(await Deno.readTextFile(gitignore), written);

  await Deno.remove(gitignore);
  const missing = finding(await doctor(p), "gitignore.missing");
  assertEquals((await runFix(p, missing.fix!)).code, 0);
  assertEquals(await Deno.readTextFile(gitignore), written);
  assertEquals(ids(await doctor(p)), []);
});
