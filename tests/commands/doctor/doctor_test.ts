/**
 * `peaks doctor` end to end: a healthy install has no findings; a stale
 * record, a removed gitignore block and drifted skills are each reported with
 * a fix, and running each fix makes its finding go away. Doctor never writes.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../../lib/infra/std.ts";
import { runPeaks } from "../../support/cli.ts";
import { runNextAction } from "../../support/next_actions.ts";
import { snapshot } from "../../support/skill_tree.ts";
import { ago, makeRecord, writeBatchOnDisk } from "../../support/subagent.ts";
import { tempDir } from "../../support/temp.ts";
import { doctor, finding, findings, healthyProject, ids, runFix } from "../../support/doctor.ts";

Deno.test("doctor on a healthy project: no findings, exit 0, every check ok, nothing written", async () => {
  await using dir = await tempDir();
  const p = await healthyProject(dir.path);
  const before = await snapshot(dir.path);
  const result = await doctor(p);
  assertEquals(result.code, 0, result.stdout + result.stderr);
  assertEquals(result.json.data.findings, []);
  assertEquals(result.json.data.healthy, true);
  assertEquals(result.json.data.counts, { error: 0, warning: 0, info: 0 });
  assertEquals(result.json.nextActions, []);
  const checks = result.json.data.checks as Array<{ name: string; status: string }>;
  assertEquals(checks.map((c) => c.name), [
    "runtime",
    "workspace",
    "gitignore",
    "skills",
    "statusline",
    "records",
    "detached",
    "worktrees",
    "standards",
    "root-files",
  ]);
  assertEquals(checks.filter((c) => c.status !== "ok"), []);
  const facts = result.json.data.facts;
  assertEquals(facts.runtime.version, "2.0.0");
  assertEquals(facts.runtime.compiled, false);
  assertEquals(facts.skills.source, { kind: "env", path: p.env.PEAKS_SKILLS_DIR });
  assertEquals(
    facts.skills.installed.map((i: { dir: string }) => i.dir),
    [
      ".claude/skills",
      ".agents/skills",
      ".cursor/skills",
      ".lingma/skills",
      ".qoder/skills",
      ".trae/skills",
    ],
  );
  // Asked of the runtime: the binary's scoped set, nothing unscoped.
  const permissions = facts.runtime.permissions;
  assertEquals(permissions.unscoped, []);
  assert(permissions.run.granted.includes("git"));
  assert(!permissions.run.granted.includes("peaks"), "a deno run drops the compiled self name");
  assertEquals(permissions.net.granted, ["127.0.0.1", "localhost", "[::1]"]);
  assertEquals(await snapshot(dir.path), before, "doctor wrote nothing");

  const plain = await runPeaks(["doctor"], { cwd: p.root, env: p.env, home: p.home });
  assertEquals(plain.code, 0);
  assertStringIncludes(plain.stdout, "no findings");
  assertStringIncludes(plain.stdout, "  skills ");
});

Deno.test("a stale record, a removed gitignore block and drifted skills: each reported with its fix, each fix clears it", async () => {
  await using dir = await tempDir();
  const p = await healthyProject(dir.path);
  await writeBatchOnDisk(p.root, p.sid, "b-doctor", [
    makeRecord({
      sessionId: p.sid,
      role: "rd",
      batchId: "b-doctor",
      n: 1,
      createdAt: ago(30 * 60_000),
      beats: [[ago(20 * 60_000), 40]],
    }),
    makeRecord({
      sessionId: p.sid,
      role: "qa",
      batchId: "b-doctor",
      n: 2,
      createdAt: ago(3 * 60_000),
    }),
  ]);
  const gitignore = join(p.root, ".peaks", ".gitignore");
  await Deno.writeTextFile(gitignore, "# the user's own line\nnotes/\n");
  await Deno.remove(join(p.root, ".claude", "skills", "peaks-code", "references", "runbook.md"));
  await Deno.writeTextFile(join(p.root, ".agents", "skills", "peaks-rd", "SKILL.md"), "edited\n");

  const before = await snapshot(dir.path);
  const result = await doctor(p);
  assertEquals(await snapshot(dir.path), before, "doctor wrote nothing");
  assertEquals(result.code, 1, "a missing skill file is an error");
  assertEquals(ids(result), [
    "gitignore.block-missing",
    "records.stale",
    "skills.drift",
    "skills.modified",
  ]);
  assertEquals(result.json.data.counts, { error: 1, warning: 3, info: 0 });

  const stale = finding(result, "records.stale");
  assertEquals(stale.severity, "warning");
  assertEquals(stale.paths?.length, 2, "the stale one and the never-started one");
  // The one that never began did not stop beating.
  assertEquals(
    stale.title,
    `Sub-agent records of session ${p.sid}: 1 stopped beating, 1 never started`,
  );
  assertEquals(
    stale.fix,
    `peaks sub-agent finalize --all-stale --outcome failed --session-id ${p.sid} --project ${p.root}`,
  );
  assertEquals(
    finding(result, "gitignore.block-missing").fix,
    `peaks workspace init --project ${p.root}`,
  );
  const drift = finding(result, "skills.drift");
  assertEquals([drift.severity, drift.paths], ["error", [
    ".claude/skills/peaks-code/references/runbook.md",
  ]]);
  assertEquals(
    drift.fix,
    `peaks skills install --agent claude-code --scope project --project ${p.root}`,
  );
  const modified = finding(result, "skills.modified");
  assertEquals([modified.confirm, modified.paths], [true, [".agents/skills/peaks-rd/SKILL.md"]]);
  assertStringIncludes(modified.fix!, "--force");
  // nextActions: the error and warning fixes, without the one that needs the user's consent.
  // (each carries the caller's --json)
  assertEquals(result.json.nextActions, [
    `${drift.fix} --json`,
    `${finding(result, "gitignore.block-missing").fix} --json`,
    `${stale.fix} --json`,
  ]);
  assertStringIncludes(result.json.data.instructions.join(" "), "confirm: true");

  // Every fix, run as written, clears its own finding and nothing else is left at the end.
  let remaining = findings(result);
  for (
    const id of ["skills.drift", "skills.modified", "gitignore.block-missing", "records.stale"]
  ) {
    const fix = remaining.find((f) => f.id === id)!.fix!;
    const ran = await runFix(p, fix);
    assertEquals(ran.code, 0, `${fix}: ${ran.out}`);
    const after = await doctor(p);
    assert(!ids(after).includes(id), `${id} is still reported after ${fix}`);
    remaining = findings(after);
  }
  const last = await doctor(p);
  assertEquals([last.code, last.json.data.findings], [0, []]);
  const repaired = await Deno.readTextFile(gitignore);
  assert(repaired.startsWith("# the user's own line\nnotes/\n"), "the user's lines are kept");
});

Deno.test("an unreadable record and an orphan detached run: reported, untouched, and cleared by their fixes", async () => {
  await using dir = await tempDir();
  const p = await healthyProject(dir.path);
  const agents = join(p.root, ".peaks", "_sub_agents", p.sid);
  await Deno.mkdir(agents, { recursive: true });
  const broken = join(agents, "dispatch-r1-rd-00000001-abcd.json");
  await Deno.writeTextFile(broken, '{"version": 1, "role": ');
  const run = join(p.root, ".peaks", "_runtime", p.sid, "detached", "r1", "qa-00000002-beef");
  await Deno.mkdir(run, { recursive: true });
  await Deno.writeTextFile(join(run, "pid"), "999999\n");

  const before = await snapshot(dir.path);
  const result = await doctor(p);
  assertEquals(await snapshot(dir.path), before, "doctor wrote nothing");
  assertEquals(result.code, 1);
  assertEquals(ids(result), ["detached.orphans", "records.unreadable"]);
  const unreadable = finding(result, "records.unreadable");
  assertEquals(unreadable.severity, "error");
  assertEquals(unreadable.paths, [`.peaks/_sub_agents/${p.sid}/dispatch-r1-rd-00000001-abcd.json`]);
  assertEquals(unreadable.fix, `mv ${broken} ${broken}.corrupt`);
  const orphans = finding(result, "detached.orphans");
  assertEquals(orphans.paths, [`.peaks/_runtime/${p.sid}/detached/r1/qa-00000002-beef`]);
  assertEquals(orphans.fix, `peaks sub-agent cleanup --orphans --project ${p.root}`);
  assertStringIncludes(orphans.title, "1 supervisor(s) gone");

  assertEquals((await runFix(p, unreadable.fix!)).code, 0);
  const listed = await runNextAction(orphans.fix!, { cwd: p.root, env: p.env, home: p.home });
  assertEquals(listed.code, 0);
  assertEquals(listed.json.data.orphans.map((o: { action: string }) => o.action), ["listed"]);
  const after = await doctor(p);
  assertEquals(ids(after), ["detached.orphans"], "listing stops nothing: the orphan stays");
  assertEquals(after.code, 0, "warnings alone exit 0");

  // Reconciling is the user's decision (the listing's own nextAction); after it doctor is clean.
  const killed = await runNextAction(listed.json.nextActions[0], {
    cwd: p.root,
    env: p.env,
    home: p.home,
  });
  assertEquals(killed.code, 0, killed.stdout);
  assertEquals(ids(await doctor(p)), []);
});

Deno.test("a broken skills manifest and a record of a session whose metadata is gone", async () => {
  await using dir = await tempDir();
  const p = await healthyProject(dir.path);
  await Deno.writeTextFile(join(p.root, ".trae", "skills", ".peaks-skills-manifest.json"), "[1,");
  const other = "2020-01-01-session-abcdef";
  await writeBatchOnDisk(p.root, other, "b-old", [
    makeRecord({
      sessionId: other,
      role: "rd",
      batchId: "b-old",
      n: 1,
      createdAt: ago(86_400_000),
    }),
  ]);
  const result = await doctor(p);
  assertEquals(result.code, 1);
  assertEquals(ids(result), ["records.stale", "skills.manifest-unreadable"]);
  const manifest = finding(result, "skills.manifest-unreadable");
  assertEquals(manifest.confirm, true);
  assertEquals(
    manifest.fix,
    `peaks skills install --agent trae --scope project --project ${p.root} --force`,
  );
  const stale = finding(result, "records.stale");
  assertEquals(stale.fix, null, "finalize cannot resolve a session without metadata");
  assertStringIncludes(stale.detail, `--session-id ${other}`);
  assertEquals(result.json.nextActions, []);

  assertEquals((await runFix(p, manifest.fix!)).code, 0);
  assertEquals(ids(await doctor(p)), ["records.stale"]);
});

Deno.test("a queued record is queued / not started, not open and beating", async () => {
  await using dir = await tempDir();
  const p = await healthyProject(dir.path);
  await writeBatchOnDisk(p.root, p.sid, "b-queued", [
    makeRecord({ sessionId: p.sid, role: "rd", batchId: "b-queued", n: 1, createdAt: ago(5_000) }),
    makeRecord({
      sessionId: p.sid,
      role: "qa",
      batchId: "b-queued",
      n: 2,
      createdAt: ago(20_000),
      beats: [[ago(5_000), 30]],
    }),
  ]);
  const result = await doctor(p);
  const records = result.json.data.checks.find((c: { name: string }) => c.name === "records");
  assertEquals(records.summary, "2 record(s) read, 1 open and beating, 1 queued / not started");
});
