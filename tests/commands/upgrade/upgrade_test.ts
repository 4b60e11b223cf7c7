import { assert, assertEquals, assertMatch } from "@std/assert";
import { pool, runPeaks } from "../../support/cli.ts";
import { runActions } from "../../support/next_actions.ts";
import { exists, tempDir, writeText } from "../../support/temp.ts";
import { snapshot } from "../../support/fixtures.ts";

function upgrade(root: string, home: string, ...args: string[]) {
  return runPeaks(["upgrade", ...args, "--project", root, "--json"], { cwd: root, home });
}

async function freshWorkspace(root: string, home: string): Promise<void> {
  const init = await runPeaks(["workspace", "init", "--project", root, "--json"], {
    cwd: root,
    home,
  });
  assertEquals(init.code, 0, init.stderr);
}

Deno.test("a fresh workspace init project is not 1.x", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const root = `${dir.path}/app`;
  await Deno.mkdir(root);
  await freshWorkspace(root, home);
  const result = await upgrade(root, home, "--detect-1x");
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.isOneX, false);
  assertEquals(result.json.data.signals, []);
  assertEquals(result.json.data.configPath, null);
  assertEquals(result.json.data.decision, "skip");
  assertEquals(result.json.nextActions, []);
});

Deno.test("each 1.x signal on its own makes the project 1.x, naming its path", async () => {
  const setups: [string, (root: string, home: string) => Promise<void>, string][] = [
    [
      "global-config",
      (_root, home) => writeText(`${home}/.peaks/config.json`, '{"version":"1.7.3"}'),
      ".peaks/config.json",
    ],
    [
      "dev-preference",
      (root) =>
        writeText(
          `${root}/.claude/rules/common/dev-preference.md`,
          "# Dev preference\n\nAfter each step run `peaks progress --json`.\n",
        ),
      ".claude/rules/common/dev-preference.md",
    ],
    [
      "preferences-version",
      (root) => writeText(`${root}/.peaks/preferences.json`, '{"schema_version":"1.0.0"}'),
      ".peaks/preferences.json",
    ],
    [
      "legacy-session-dir",
      (root) => writeText(`${root}/.peaks/2026-05-02-session-9f8e7d/rd/tech-doc.md`, "# old"),
      ".peaks/2026-05-02-session-9f8e7d/",
    ],
    [
      "legacy-active-skill",
      (root) => writeText(`${root}/.peaks/.active-skill.json`, '{"skill":"peaks-solo"}'),
      ".peaks/.active-skill.json",
    ],
    [
      "legacy-session-file",
      (root) => writeText(`${root}/.peaks/.session.json`, '{"id":"x"}'),
      ".peaks/.session.json",
    ],
  ];
  for (const [kind, setup, path] of setups) {
    await using dir = await tempDir();
    const home = `${dir.path}/home`;
    const root = `${dir.path}/app`;
    await Deno.mkdir(`${root}/.peaks`, { recursive: true });
    await setup(root, home);
    const result = await upgrade(root, home, "--detect-1x");
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.json.data.isOneX, true, kind);
    assertEquals(result.json.data.signals.length, 1, kind);
    assertEquals(result.json.data.signals[0].kind, kind);
    assert(result.json.data.signals[0].path.endsWith(path), result.json.data.signals[0].path);
    assertEquals(result.json.data.decision, "ask");
    assertEquals(result.json.data.projectRoot, root);
    // The two offered commands run: the preview writes nothing, the upgrade clears the signal.
    const before = await snapshot(root);
    const [preview, run] = await runActions(result.json.nextActions, { cwd: root, home });
    assertEquals(preview.code, 0, preview.stderr);
    assertEquals(preview.json.data.dryRun, true);
    assertEquals(run.code, 0, run.stderr);
    assert(JSON.stringify(before) !== JSON.stringify(await snapshot(root)), "the upgrade wrote");
    const after = await upgrade(root, home, "--detect-1x");
    assertEquals(after.json.data.isOneX, kind === "global-config", `after upgrade: ${kind}`);
    if (kind === "global-config") assertEquals(run.json.warnings[0].code, "GLOBAL_CONFIG_1X");
  }
});

async function oneXProject(root: string): Promise<void> {
  await writeText(
    `${root}/.peaks/preferences.json`,
    JSON.stringify({ schema_version: "1.0.0", autoUpgradePrompt: "opt-in", theme: "dark" }),
  );
  await writeText(`${root}/.peaks/.active-skill.json`, '{"skill":"peaks-solo"}');
  await writeText(`${root}/.peaks/2026-06-06-session-5b1095/rd/tech-doc.md`, "# Tech doc\n");
  await writeText(`${root}/.peaks/2026-06-06-session-5b1095/sc/swarm-plan.json`, '{"rid":"001"}');
  await writeText(`${root}/.peaks/2026-06-07-session-77aa00/prd/requests/001.md`, "# PRD\n");
  await writeText(`${root}/.peaks/_runtime/2026-06-07-session-77aa00/session.json`, "{}");
  await writeText(
    `${root}/.claude/rules/common/dev-preference.md`,
    "# Dev preference\n\nRun `peaks progress` after every step.\n",
  );
  await writeText(`${root}/.claude/rules/team/style.md`, "# Style\n\nTabs, not spaces.\n");
  await writeText(`${root}/src/index.ts`, "export {};\n");
}

Deno.test("--to 2.0 --auto migrates once, backs up, records, and changes nothing the second time", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const root = `${dir.path}/app`;
  await oneXProject(root);

  const detect = await upgrade(root, home, "--detect-1x");
  assertEquals(detect.json.data.decision, "auto-run");
  assertEquals(detect.json.nextActions, [`peaks upgrade --to 2.0 --auto --project ${root} --json`]);

  const first = await upgrade(root, home, "--to", "2.0", "--auto");
  assertEquals(first.code, 0, first.stderr);
  const steps = Object.fromEntries(
    first.json.data.steps.map((s: { step: string; status: string }) => [s.step, s.status]),
  );
  assertEquals(steps, {
    workspace: "changed",
    preferences: "changed",
    gitignore: "changed",
    "runtime-layout": "changed",
    "request-artefacts": "changed",
    standards: "changed",
    "upgrade-record": "changed",
  });
  const prefs = JSON.parse(await Deno.readTextFile(`${root}/.peaks/preferences.json`));
  assertEquals(prefs, { schema_version: "2.0.0", autoUpgradePrompt: "opt-in" });
  assert(await exists(`${root}/.peaks/_runtime/2026-06-06-session-5b1095/rd/tech-doc-001.md`));
  assert(await exists(`${root}/.peaks/_runtime/2026-06-06-session-5b1095/session.json`));
  assertEquals(await exists(`${root}/.peaks/2026-06-06-session-5b1095`), false);
  assertEquals(await exists(`${root}/.peaks/.active-skill.json`), false);
  const thinned = await Deno.readTextFile(`${root}/.claude/rules/common/dev-preference.md`);
  assertMatch(thinned, /^<!-- peaks:thinned v1 -->/);
  assert(!thinned.includes("peaks progress"));
  assertEquals(
    await Deno.readTextFile(`${root}/.peaks/standards/legacy-rules/common/dev-preference.md`),
    "# Dev preference\n\nRun `peaks progress` after every step.\n",
  );
  assertEquals(
    await Deno.readTextFile(`${root}/.claude/rules/team/style.md`),
    "# Style\n\nTabs, not spaces.\n",
    "the user's own rule is untouched",
  );
  assert(await exists(`${root}/.peaks/standards/README.md`));
  const backupDir = `${root}/${first.json.data.backupDir}`;
  assertEquals(
    JSON.parse(await Deno.readTextFile(`${backupDir}/.peaks/preferences.json`)).theme,
    "dark",
  );
  assert(await exists(`${backupDir}/.claude/rules/common/dev-preference.md`));
  assert(await exists(`${backupDir}/.peaks/.active-skill.json`));
  assert(
    await exists(`${backupDir}/.peaks/2026-06-07-session-77aa00/prd/requests/001.md`),
    "a 1.x folder whose 2.0 twin exists is kept in the backup",
  );
  const record = JSON.parse(await Deno.readTextFile(`${root}/${first.json.data.recordPath}`));
  assertEquals(record.to, "2.0");
  assertEquals(record.signals.map((s: { kind: string }) => s.kind), [
    "dev-preference",
    "preferences-version",
  ]);
  assertMatch(await Deno.readTextFile(`${root}/.peaks/.gitignore`), /^_runtime\/$/m);

  const after = await upgrade(root, home, "--detect-1x");
  assertEquals(after.json.data.isOneX, false);
  assertEquals(first.json.data.remainingSignals, []);

  const before = await snapshot(root);
  const second = await upgrade(root, home, "--to", "2.0", "--auto");
  assertEquals(second.code, 0, second.stderr);
  assertEquals(second.json.data.changed, false);
  assertEquals(second.json.data.recordPath, null);
  assert(second.json.data.steps.every((s: { status: string }) => s.status === "unchanged"));
  assertEquals(await snapshot(root), before);
  const follow = await runActions(second.json.nextActions, { cwd: root, home });
  for (const r of follow) assertEquals(r.code, 0, r.stdout + r.stderr);
});

Deno.test("--dry-run reports every step and writes nothing", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const root = `${dir.path}/app`;
  await oneXProject(root);
  const before = await snapshot(root);
  const result = await upgrade(root, home, "--to", "2.0", "--auto", "--dry-run");
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.dryRun, true);
  // The per-request move runs on the 2.0 session folders, which a dry run has not made yet.
  const planned = result.json.data.steps.filter((s: { step: string }) =>
    s.step !== "request-artefacts"
  );
  assert(planned.every((s: { status: string }) => s.status === "planned"));
  assert(result.json.data.backups.includes(".peaks/preferences.json"));
  assertEquals(await snapshot(root), before);
});

Deno.test("upgrade usage: one of --detect-1x / --to, --auto required, a workspace needed", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const none = await upgrade(dir.path, home);
  assertEquals(none.code, 2);
  assertEquals(none.json.code, "MISSING_FLAG");
  const both = await upgrade(dir.path, home, "--detect-1x", "--to", "2.0");
  assertEquals(both.code, 2);
  const noAuto = await upgrade(dir.path, home, "--to", "2.0");
  assertEquals(noAuto.code, 2);
  assertEquals(noAuto.json.data.flag, "auto");
  const badVersion = await upgrade(dir.path, home, "--to", "3.0", "--auto");
  assertEquals(badVersion.code, 2);
  const noWorkspace = await upgrade(dir.path, home, "--to", "2.0", "--auto");
  assertEquals(noWorkspace.code, 1);
  assertEquals(noWorkspace.json.code, "NO_WORKSPACE");
  const [init] = await runActions(noWorkspace.json.nextActions, { cwd: dir.path, home });
  assertEquals(init.code, 0);
});

Deno.test("concurrent migrations: one does the work, the rest find nothing to do", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const root = `${dir.path}/app`;
  await oneXProject(root);
  const results = await pool(12, 12, () => upgrade(root, home, "--to", "2.0", "--auto"));
  for (const r of results) assertEquals(r.code, 0, r.stdout + r.stderr);
  assertEquals(results.filter((r) => r.json.data.changed).length, 1);
  const records = [...Deno.readDirSync(`${root}/.peaks/upgrade`)].filter((e) =>
    e.name.startsWith("upgrade-")
  );
  assertEquals(records.length, 1);
  assert(await exists(`${root}/.peaks/_runtime/2026-06-06-session-5b1095/rd/tech-doc-001.md`));
});
