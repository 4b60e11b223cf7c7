/**
 * Isolated slices end to end through the real entry point: a slice DAG from
 * RD planning, detached stand-in vendors working in their own worktrees, the
 * merge back at finalize in DAG order, conflicts and the commands that decide
 * them, and what git shows afterwards.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runPeaks, type RunResult } from "../support/cli.ts";
import { exists, tempDir, writeText } from "../support/temp.ts";
import { fillPlaceholders, TECH_DOC } from "../support/request_fixture.ts";
import { prdText } from "../support/swarm.ts";
import { detachedEnv, fakeVendors, type Script, waitForExit } from "../support/detached.ts";
import { runNextAction } from "../support/next_actions.ts";
import { recordPathOf } from "../support/subagent.ts";
import {
  git,
  GIT_ENV,
  SHARED,
  sliceBranches,
  type SliceNode,
  sliceRepo,
  worktreePaths,
  writeSliceDag,
} from "../support/slices.ts";

interface World {
  root: string;
  sid: string;
  env: Record<string, string>;
}

async function world(root: string, script: Script): Promise<World> {
  const bin = await fakeVendors(root, { claude: script });
  const env = { ...detachedEnv(bin), ...GIT_ENV };
  const sid = await sliceRepo(root, env);
  return { root, sid, env };
}

function peaks(w: World, args: string[]): Promise<RunResult> {
  return runPeaks([...args, "--json"], { cwd: w.root, env: w.env });
}

/** `swarm slices`, then its nextAction with the detached stand-in; waits for every vendor. */
async function runSlices(
  w: World,
  nodes: SliceNode[],
  edges: Array<{ from: string; to: string }> = [],
): Promise<Record<string, string>> {
  await writeSliceDag(w.root, w.sid, nodes, edges);
  const checked = await peaks(w, ["swarm", "slices", "--rid", "r1"]);
  assertEquals(checked.code, 0, checked.stdout);
  const sent = await runNextAction(
    `${checked.json.nextActions[0]} --mode detached --vendor claude`,
    { cwd: w.root, env: w.env },
  );
  assertEquals(sent.code, 0, sent.stdout + sent.stderr);
  for (const run of sent.json.data.detached) await waitForExit(join(w.root, run.runDir));
  return Object.fromEntries(
    sent.json.data.slices.map((s: { node: string; record: string }) => [
      s.node,
      recordPathOf(w.root, s.record),
    ]),
  );
}

function finalize(w: World, record: string): Promise<RunResult> {
  return peaks(w, ["sub-agent", "finalize", "--record", record, "--outcome", "done"]);
}

const read = (w: World, rel: string) => Deno.readTextFile(join(w.root, rel));

Deno.test("slices touch no ref: detached worktrees, so a packed-refs.lock a killed git left cannot strand a branch", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w = await world(dir.path, "slice");
  // What a git killed while it deleted a branch leaves: the repository-wide packed-refs lock.
  const lock = join(w.root, ".git", "packed-refs.lock");
  await Deno.writeTextFile(lock, "");
  const records = await runSlices(w, [{ id: "a" }, { id: "b" }]);
  // Detached worktrees: no branch is made for a slice.
  assertEquals(await sliceBranches(w.root), []);
  const porcelain = await git(w.root, "worktree", "list", "--porcelain");
  assertEquals(porcelain.split("\n").filter((l) => l === "detached").length, 2, porcelain);
  for (const id of ["a", "b"]) {
    const stored = JSON.parse(await Deno.readTextFile(join(w.root, records[id])));
    assertEquals(stored.worktree.branch, null);
  }
  assertEquals((await finalize(w, records.b)).code, 0);
  const a = await finalize(w, records.a);
  assertEquals(a.code, 0, a.stdout);
  assertEquals(await read(w, "src/rd-b.txt"), "written by rd-b\n");
  // Both removed with the lock still there; nothing is left for cleanup.
  assertEquals(await worktreePaths(w.root), [await Deno.realPath(w.root)]);
  assertEquals(await sliceBranches(w.root), []);
  assert(await exists(lock), "peaks never removes git's own lock");
  const cleanup = await peaks(w, ["sub-agent", "cleanup"]);
  assertEquals(cleanup.json.data.worktrees?.leftovers ?? [], [], cleanup.stdout);
});

Deno.test("three slices of one level edit disjoint files in parallel: all land in the main tree, in DAG order", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w = await world(dir.path, "slice");
  const head = (await git(w.root, "rev-parse", "HEAD")).trim();
  const records = await runSlices(w, [{ id: "a" }, { id: "b" }, { id: "c" }]);

  // Each vendor worked in its own worktree: nothing is in the main tree before finalize.
  assert(!(await exists(join(w.root, "src", "rd-a.txt"))));
  assertEquals((await worktreePaths(w.root)).length, 4);

  // Finalized in reverse: c and b wait for a, which comes first in the DAG; a brings all three.
  const c = await finalize(w, records.c);
  assertEquals(c.code, 0, c.stdout);
  assertEquals(
    c.json.data.slices.map((s: { node: string; action: string }) => [s.node, s.action]),
    [
      ["a", "waiting"],
      ["b", "waiting"],
      ["c", "waiting"],
    ],
  );
  assert(!(await exists(join(w.root, "src", "rd-c.txt"))), "c waits for a and b");
  const b = await finalize(w, records.b);
  assertEquals(b.code, 0, b.stdout);
  const a = await finalize(w, records.a);
  assertEquals(a.code, 0, a.stdout);
  assertEquals(
    a.json.data.slices.map((s: { node: string; action: string }) => [s.node, s.action]),
    [["a", "merged"], ["b", "merged"], ["c", "merged"]],
  );

  for (const id of ["a", "b", "c"]) {
    assertEquals(await read(w, `src/rd-${id}.txt`), `written by rd-${id}\n`);
  }
  assertEquals(await worktreePaths(w.root), [await Deno.realPath(w.root)]);
  assertEquals(await sliceBranches(w.root), []);
  // Merged as working-tree changes: nothing committed, nothing staged.
  assertEquals((await git(w.root, "rev-parse", "HEAD")).trim(), head);
  assertEquals(await git(w.root, "diff", "--cached", "--name-only"), "");

  const listed = await peaks(w, ["sub-agent", "list"]);
  for (const row of listed.json.data.records) {
    assertEquals([row.worktree.state, row.worktree.path], ["merged", null]);
  }
});

Deno.test("the workflow waits for every slice, sends the next level, then one RD sub-agent reviews the merged change", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w = await world(dir.path, "slice");
  // A handed-off PRD and its RD request at spec-locked: the implementation is the next step.
  await writeText(
    join(w.root, `.peaks/_runtime/${w.sid}/prd/requests/r1.md`),
    prdText("r1", "feature", "handed-off", "Add three files."),
  );
  const init = await peaks(w, [
    "request",
    "init",
    "--role",
    "rd",
    "--id",
    "r1",
    "--type",
    "feature",
    "--apply",
  ]);
  assertEquals(init.code, 0, init.stdout);
  await fillPlaceholders(join(w.root, `.peaks/_runtime/${w.sid}/rd/requests/r1.md`));
  await writeText(join(w.root, `.peaks/_runtime/${w.sid}/rd/tech-doc-r1.md`), TECH_DOC);
  const locked = await peaks(w, [
    "request",
    "transition",
    "r1",
    "--role",
    "rd",
    "--state",
    "spec-locked",
  ]);
  assertEquals(locked.code, 0, locked.stdout);
  assertMatch(locked.json.nextActions[0], /^peaks sub-agent dispatch rd --request-id r1 /);

  const first = await runSlices(w, [{ id: "a" }, { id: "b" }, { id: "c" }], [
    { from: "a", to: "c" },
    { from: "b", to: "c" },
  ]);
  // A slice of the level still open: the workflow waits for it.
  const a = await finalize(w, first.a);
  assertEquals(a.json.nextActions, []);
  assertMatch(a.json.data.waitingFor, /^the RD slices: finalize b/);
  // The level merged: the next step is the next level of the same batch.
  const b = await finalize(w, first.b);
  const level2 = b.json.nextActions[0];
  assertMatch(
    level2,
    /^peaks sub-agent dispatch --from-dag \S+slices-r1\.json --batch-id slices-r1-/,
  );
  const sent = await runNextAction(`${level2} --mode detached --vendor claude`, {
    cwd: w.root,
    env: w.env,
  });
  assertEquals(sent.code, 0, sent.stdout);
  await waitForExit(join(w.root, sent.json.data.detached[0].runDir));
  const c = await finalize(w, recordPathOf(w.root, sent.json.data.records[0]));
  assertEquals(c.json.data.slices.map((s: { action: string }) => s.action), [
    "unchanged",
    "unchanged",
    "merged",
  ]);
  assertEquals(await read(w, "src/rd-c.txt"), "written by rd-c\n");

  // Every slice merged: RD's dispatch is next, and swarm slices says so too.
  assertMatch(c.json.nextActions[0], /^peaks sub-agent dispatch rd --request-id r1 /);
  const checked = await peaks(w, ["swarm", "slices", "--rid", "r1"]);
  assertEquals([checked.code, checked.json.data.complete], [0, true], checked.stdout);
  assertEquals(checked.json.nextActions, c.json.nextActions);
  const review = await runNextAction(c.json.nextActions[0], { cwd: w.root, env: w.env });
  assertEquals(review.code, 0, review.stdout);
  const task = JSON.parse(await read(w, recordPathOf(w.root, review.json.data.record))).prompt;
  assertStringIncludes(task, "RD's implementation slices (a, b, c) are merged");
  assertStringIncludes(task, "rd/code-review-r1.md");
});

Deno.test("two slices change the same lines: SLICE_CONFLICT names both, the refused one leaves the main tree alone, both patches stay", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w = await world(dir.path, "clash");
  const records = await runSlices(w, [
    { id: "x", owns: ["src/x/"] },
    { id: "y", owns: ["src/y/"] },
    { id: "z", owns: ["src/z/"] },
  ]);
  assertEquals(await read(w, "src/shared.txt"), SHARED, "nothing lands before finalize");
  const x = await finalize(w, records.x);
  assertEquals(x.code, 0, x.stdout);
  assertEquals(await read(w, "src/shared.txt"), "one\nrd-x\nthree\n");
  // The slice went outside what it owns: reported, not refused.
  assert(x.json.warnings.some((w: { code: string }) => w.code === "SLICE_OUTSIDE_OWNERSHIP"));

  const y = await finalize(w, records.y);
  assertEquals([y.code, y.json.code], [3, "SLICE_CONFLICT"], y.stdout);
  assertMatch(y.json.message, /slice y overlaps slice x on src\/shared\.txt/);
  const conflict = y.json.data.conflicts[0];
  assertEquals(conflict.files, ["src/shared.txt"]);
  assertEquals(conflict.with.map((o: { node: string }) => o.node), ["x"]);
  assertEquals(await read(w, "src/shared.txt"), "one\nrd-x\nthree\n", "y changed nothing");
  assert(await exists(join(w.root, conflict.worktree)) || await exists(conflict.worktree));
  // Both changes are recoverable as patches.
  const patches = [x.json.data.slices[0].patch, conflict.patch];
  for (const patch of patches) assertStringIncludes(await read(w, patch), "src/shared.txt");

  // z conflicts too; the first choice keeps the main tree, the second takes z's version.
  const z = await finalize(w, records.z);
  assertEquals(z.json.code, "SLICE_CONFLICT");
  const keepMain = await runNextAction(conflict.commands.keepMain, { cwd: w.root, env: w.env });
  assertEquals(keepMain.code, 0, keepMain.stdout);
  assertEquals(keepMain.json.data.slice.state, "discarded");
  assertEquals(await read(w, "src/shared.txt"), "one\nrd-x\nthree\n");
  const keepSlice = await runNextAction(z.json.data.conflicts[0].commands.keepSlice, {
    cwd: w.root,
    env: w.env,
  });
  assertEquals(keepSlice.code, 0, keepSlice.stdout);
  assertEquals(await read(w, "src/shared.txt"), "one\nrd-z\nthree\n");
  assertEquals(await worktreePaths(w.root), [await Deno.realPath(w.root)]);
  assertStringIncludes(await read(w, conflict.patch), "+rd-y");
  // Every node of the DAG was sent: nothing more to fan out.
  assertEquals([keepMain.json.nextActions, keepSlice.json.nextActions], [[], []]);
});

Deno.test("a decided conflict goes on with the DAG: the merge's nextAction sends the next level", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w = await world(dir.path, "clash");
  const records = await runSlices(w, [{ id: "x" }, { id: "y" }, { id: "z" }], [
    { from: "x", to: "z" },
    { from: "y", to: "z" },
  ]);
  assertEquals((await finalize(w, records.x)).code, 0);
  const y = await finalize(w, records.y);
  assertEquals(y.json.code, "SLICE_CONFLICT");
  const kept = await runNextAction(y.json.data.conflicts[0].commands.keepSlice, {
    cwd: w.root,
    env: w.env,
  });
  assertEquals(kept.code, 0, kept.stdout);
  assertEquals(kept.json.nextActions.length, 1, kept.stdout);
  assertMatch(kept.json.nextActions[0], /^peaks sub-agent dispatch --from-dag /);
  const next = await runNextAction(kept.json.nextActions[0], { cwd: w.root, env: w.env });
  assertEquals(next.code, 0, next.stdout);
  assertEquals(next.json.data.slices.map((s: { node: string }) => s.node), ["z"]);
  for (const run of next.json.data.detached) await waitForExit(join(w.root, run.runDir));
});

Deno.test("--redo sends a conflicting slice out again on top of the main tree; it then merges", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w = await world(dir.path, "clash");
  const records = await runSlices(w, [{ id: "x" }, { id: "y" }]);
  assertEquals((await finalize(w, records.x)).code, 0);
  const y = await finalize(w, records.y);
  assertEquals(y.json.code, "SLICE_CONFLICT");
  const doctor = await peaks(w, ["doctor"]);
  assert(doctor.json.data.findings.some((f: { id: string }) => f.id === "worktrees.conflict"));

  const redo = await runNextAction(y.json.data.conflicts[0].commands.redo, {
    cwd: w.root,
    env: w.env,
  });
  assertEquals(redo.code, 0, redo.stdout);
  assertEquals(redo.json.data.slice.state, "redo");
  const again = await runNextAction(redo.json.nextActions[0], { cwd: w.root, env: w.env });
  assertEquals(again.code, 0, again.stdout);
  assertEquals(again.json.data.slices.map((s: { node: string }) => s.node), ["y"]);
  const record = recordPathOf(w.root, again.json.data.slices[0].record);
  const prompt = JSON.parse(await read(w, record)).prompt as string;
  assertStringIncludes(prompt, "An earlier attempt of this slice was not merged");
  assertStringIncludes(prompt, y.json.data.conflicts[0].patch);
  await waitForExit(join(w.root, again.json.data.detached[0].runDir));
  const done = await finalize(w, record);
  assertEquals(done.code, 0, done.stdout);
  assertEquals(await read(w, "src/shared.txt"), "one\nrd-y\nthree\n");
  const complete = await runNextAction(redo.json.nextActions[0], { cwd: w.root, env: w.env });
  assertEquals(complete.json.data.complete, true, complete.stdout);
});

Deno.test("Claude Code: the Agent tool call carries isolation: worktree, and the host's worktree comes back at finalize", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w: World = { root: dir.path, sid: "", env: { ...GIT_ENV, CLAUDECODE: "1" } };
  w.sid = await sliceRepo(w.root, w.env);
  const rel = await writeSliceDag(w.root, w.sid, [{ id: "a" }, { id: "b" }]);
  const sent = await peaks(w, ["sub-agent", "dispatch", "--from-dag", rel, "--request-id", "r1"]);
  assertEquals(sent.code, 0, sent.stdout);
  for (const call of sent.json.data.toolCalls) assertEquals(call.args.isolation, "worktree");
  assertEquals(await worktreePaths(w.root), [await Deno.realPath(w.root)], "the host makes them");
  const pointer = /`(peaks sub-agent brief [^`]+)`/.exec(sent.json.data.toolCalls[0].args.prompt);
  assert(pointer, sent.json.data.toolCalls[0].args.prompt);

  // What Claude Code does: a worktree per agent, the change left in it.
  const wt = join(w.root, ".claude", "worktrees", "agent-a");
  await git(w.root, "worktree", "add", "-q", "-b", "worktree-agent-a", wt);
  await Deno.writeTextFile(join(wt, "src", "rd-a.txt"), "from the host's worktree\n");
  // The sub-agent starts in its worktree: the pointer names the project, so its brief is found.
  const brief = await runNextAction(pointer![1], { cwd: wt, env: w.env });
  assertEquals(brief.code, 0, brief.stdout + brief.stderr);
  assertStringIncludes(brief.json.data.prompt, '"worktree"');
  const [a, b] = sent.json.data.slices.map((s: { record: string }) => s.record);
  const result = JSON.stringify({
    role: "rd-a",
    rid: "r1",
    status: "ok",
    artefacts: [],
    warnings: [],
  });
  const fa = await peaks(w, [
    "sub-agent",
    "finalize",
    "--record",
    a,
    "--outcome",
    "done",
    "--result-json",
    result,
    "--worktree",
    ".claude/worktrees/agent-a",
  ]);
  assertEquals(fa.code, 0, fa.stdout);
  assertEquals(fa.json.data.slices[0].action, "merged");
  assertEquals(await read(w, "src/rd-a.txt"), "from the host's worktree\n");
  assert(!(await exists(wt)));
  // An agent that changed nothing has no worktree left (Claude Code removes it): nothing to merge.
  const fb = await finalize(w, b);
  assertEquals(fb.code, 0, fb.stdout);
  assert(fb.json.warnings.some((x: { code: string }) => x.code === "SLICE_NO_WORKTREE"));
  assertEquals(await worktreePaths(w.root), [await Deno.realPath(w.root)]);
  // peaks made no folder of its own next to the host's worktrees.
  assertEquals(await Array.fromAsync(Deno.readDir(join(w.root, ".claude", "worktrees"))), []);
});

Deno.test("Claude Code with uncommitted changes, and a host without worktree isolation, get peaks' own worktrees (Claude Code's under .claude/worktrees)", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w: World = { root: dir.path, sid: "", env: { ...GIT_ENV, CLAUDECODE: "1" } };
  w.sid = await sliceRepo(w.root, w.env);
  await Deno.writeTextFile(join(w.root, "src", "shared.txt"), "uncommitted\n");
  const rel = await writeSliceDag(w.root, w.sid, [{ id: "a" }, { id: "b" }]);
  const claude = await peaks(w, ["sub-agent", "dispatch", "--from-dag", rel, "--request-id", "r1"]);
  assertEquals(claude.code, 0, claude.stdout);
  assert(claude.json.warnings.some((x: { code: string }) => x.code === "HOST_ISOLATION_SKIPPED"));
  const call = claude.json.data.toolCalls[0];
  assertEquals(call.args.isolation, undefined);
  const slice = claude.json.data.slices[0];
  // Claude Code refuses its sub-agents' writes under .git/, not under .claude/worktrees/.
  assertMatch(slice.worktree, /^\.claude\/worktrees\/peaks-p-[0-9a-f]{8}\/r1\/rd-a-/);
  const prompt = JSON.parse(await read(w, recordPathOf(w.root, slice.record))).prompt;
  assertStringIncludes(prompt, join(await Deno.realPath(w.root), slice.worktree));
  // The worktree starts from the main tree as it is, uncommitted change included.
  assertEquals(await read(w, `${slice.worktree}/src/shared.txt`), "uncommitted\n");

  // Another slice DAG (one DAG goes out in one batch) on a host without isolation of its own.
  const other = await writeSliceDag(w.root, w.sid, [{ id: "c" }, { id: "d" }], [], "r2");
  const cursor = await peaks(w, [
    "sub-agent",
    "dispatch",
    "--from-dag",
    other,
    "--request-id",
    "r1",
    "--batch-id",
    "cursor-run",
    "--ide",
    "opencode",
  ]);
  assertEquals(cursor.code, 0, cursor.stdout);
  assertEquals(cursor.json.data.slices.map((s: { kind: string }) => s.kind), ["peaks", "peaks"]);
  for (const s of cursor.json.data.slices) {
    assertMatch(s.worktree, /^\.git\/peaks-worktrees\/p-[0-9a-f]{8}\/r1\/rd-[cd]-/);
    // The worktrees peaks made under .claude/worktrees for Claude Code are not in this snapshot.
    assert(!(await exists(join(w.root, s.worktree, ".claude"))), s.worktree);
  }
  assertEquals((await worktreePaths(w.root)).length, 5);
  const status = await runPeaks(["sub-agent", "status", "--batch", "cursor-run"], {
    cwd: w.root,
    env: w.env,
  });
  assertStringIncludes(status.stdout, "rd-c: worktree ready .git/peaks-worktrees/");
});

for (
  const host of [
    { name: "Claude Code", env: { CLAUDECODE: "1" }, args: [], root: ".claude/worktrees/peaks-" },
    { name: "opencode", env: {}, args: ["--ide", "opencode"], root: ".git/peaks-worktrees/" },
  ] as Array<{ name: string; env: Record<string, string>; args: string[]; root: string }>
) {
  Deno.test(`${host.name}, main tree with uncommitted changes: the slice's worktree under ${host.root}…, merged at finalize, orphans there found by cleanup`, async () => {
    await using dir = await tempDir("peaks-slices-");
    const w: World = { root: dir.path, sid: "", env: { ...GIT_ENV, ...host.env } };
    w.sid = await sliceRepo(w.root, w.env);
    const root = await Deno.realPath(w.root);
    await Deno.writeTextFile(join(w.root, "src", "shared.txt"), "uncommitted\n");
    const rel = await writeSliceDag(w.root, w.sid, [{ id: "a", owns: ["src/rd-a.txt"] }]);
    const sent = await peaks(w, [
      "sub-agent",
      "dispatch",
      "--from-dag",
      rel,
      "--request-id",
      "r1",
      ...host.args,
    ]);
    assertEquals(sent.code, 0, sent.stdout);
    assertEquals(sent.json.data.toolCalls[0].args.isolation, undefined);
    const slice = sent.json.data.slices[0];
    assertEquals(slice.kind, "peaks");
    assert(slice.worktree.startsWith(`${host.root}p-`), slice.worktree);
    const wt = join(root, slice.worktree);
    assertEquals((await worktreePaths(w.root)).sort(), [root, wt].sort());
    const prompt = JSON.parse(await read(w, recordPathOf(w.root, slice.record))).prompt;
    assertStringIncludes(prompt, `not in the project root: ${wt}`);

    // The sub-agent writes its file in the worktree; finalize brings it back and removes it.
    await Deno.writeTextFile(join(wt, "src", "rd-a.txt"), "written in the worktree\n");
    const done = await finalize(w, slice.record);
    assertEquals(done.code, 0, done.stdout);
    assertEquals(done.json.data.slices[0].action, "merged");
    assertEquals(await read(w, "src/rd-a.txt"), "written in the worktree\n");
    assertEquals(await read(w, "src/shared.txt"), "uncommitted\n");
    assert(!(await exists(wt)));
    assertEquals(await worktreePaths(w.root), [root]);
    assertEquals(await sliceBranches(w.root), []);
    // Inside the main tree, nothing of peaks' is left once its last slice is merged.
    if (host.root.startsWith(".claude")) {
      assertEquals(await Array.fromAsync(Deno.readDir(join(root, ".claude", "worktrees"))), []);
    }

    // A checkout under the same root that no record names is an orphan: listed, then removed.
    const lost = wt.replace(/\/r1\/[^/]+$/, "/r9/lost");
    await git(w.root, "worktree", "add", "-q", "-b", "peaks/r9/lost", lost);
    await Deno.writeTextFile(join(lost, "README.md"), "changed in the orphan\n");
    const listed = await peaks(w, ["sub-agent", "cleanup", "--orphans"]);
    assertEquals(listed.code, 0, listed.stdout);
    assertEquals(
      listed.json.data.worktreeOrphans.map((o: { path: string }) => o.path),
      [lost.slice(root.length + 1)],
      listed.stdout,
    );
    const doctor = await peaks(w, ["doctor"]);
    assert(doctor.json.data.findings.some((f: { id: string }) => f.id === "worktrees.orphans"));
    const killed = await peaks(w, ["sub-agent", "cleanup", "--orphans", "--kill"]);
    assertEquals(killed.code, 0, killed.stdout);
    assertStringIncludes(
      await read(w, killed.json.data.worktreeOrphans[0].patch),
      "+changed in the orphan",
    );
    assert(!(await exists(lost)));
    assertEquals(await worktreePaths(w.root), [root]);
    assertEquals(await sliceBranches(w.root), []);
    if (host.root.startsWith(".claude")) {
      assertEquals(await Array.fromAsync(Deno.readDir(join(root, ".claude", "worktrees"))), []);
    }
  });
}

Deno.test("Claude Code's worktrees in .claude/worktrees and the local settings file are not changes of the main tree", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w: World = { root: dir.path, sid: "", env: { ...GIT_ENV, CLAUDECODE: "1" } };
  w.sid = await sliceRepo(w.root, w.env);
  // What Claude Code leaves in the main tree, untracked and not ignored: a worktree of an
  // earlier agent (with a change in it) and the settings file `peaks permissions install` writes.
  const old = join(w.root, ".claude", "worktrees", "agent-old");
  await git(w.root, "worktree", "add", "-q", "-b", "worktree-agent-old", old);
  await Deno.writeTextFile(join(old, "src", "shared.txt"), "changed by an earlier agent\n");
  await writeText(join(w.root, ".claude", "settings.local.json"), "{}\n");
  const rel = await writeSliceDag(w.root, w.sid, [{ id: "a" }, { id: "b" }]);
  const sent = await peaks(w, ["sub-agent", "dispatch", "--from-dag", rel, "--request-id", "r1"]);
  assertEquals(sent.code, 0, sent.stdout);
  assertEquals(sent.json.warnings, []);
  for (const call of sent.json.data.toolCalls) assertEquals(call.args.isolation, "worktree");

  // With a real change, peaks makes the worktrees from a snapshot that leaves both out.
  await Deno.writeTextFile(join(w.root, "src", "shared.txt"), "uncommitted\n");
  const other = await writeSliceDag(w.root, w.sid, [{ id: "c" }, { id: "d" }], [], "r2");
  const own = await peaks(w, ["sub-agent", "dispatch", "--from-dag", other, "--request-id", "r1"]);
  assertEquals(own.code, 0, own.stdout);
  assert(own.json.warnings.some((x: { code: string }) => x.code === "HOST_ISOLATION_SKIPPED"));
  const slice = join(w.root, own.json.data.slices[0].worktree);
  assertEquals(
    await read(w, `${own.json.data.slices[0].worktree}/src/shared.txt`),
    "uncommitted\n",
  );
  assert(!(await exists(join(slice, ".claude"))), "no host worktree or local settings in a slice");
});

Deno.test("a commit made inside a worktree is UNAUTHORIZED_COMMIT, and its change still comes back", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w = await world(dir.path, "commits");
  const head = (await git(w.root, "rev-parse", "HEAD")).trim();
  const records = await runSlices(w, [{ id: "a", owns: ["src/"] }]);
  const a = await finalize(w, records.a);
  assertEquals(a.code, 0, a.stdout);
  const audit = a.json.warnings.find((x: { code: string }) => x.code === "UNAUTHORIZED_COMMIT");
  assertMatch(audit.message, /1 commit\(s\) were made in rd-a's worktree/);
  assertEquals(a.json.data.audit.unauthorizedCommits, 1);
  assertEquals(await read(w, "src/rd-a.txt"), "committed by rd-a\n");
  assertEquals(await read(w, "src/rd-a-extra.txt"), "left uncommitted by rd-a\n");
  assertEquals(
    (await git(w.root, "rev-parse", "HEAD")).trim(),
    head,
    "the main branch gained nothing",
  );
});

Deno.test("swarm slices refuses unknown nodes, cycles, shared paths at one level, owner-less and unisolated parallel slices", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w: World = { root: dir.path, sid: "", env: GIT_ENV };
  w.sid = await sliceRepo(w.root, w.env);
  const check = () => peaks(w, ["swarm", "slices", "--rid", "r1"]);

  const none = await check();
  assertEquals([none.code, none.json.data.slices], [0, false], none.stderr);
  const missing = await peaks(w, ["swarm", "slices", "--rid", "r1", "--file", "nope.json"]);
  assertEquals([missing.code, missing.json.code], [3, "SLICES_NOT_FOUND"]);
  await writeSliceDag(w.root, w.sid, [{ id: "a" }], [{ from: "a", to: "ghost" }]);
  const unknown = await check();
  assertEquals([unknown.code, unknown.json.code], [2, "DAG_INVALID"]);
  assertMatch(unknown.json.message, /unknown node "ghost"/);
  await writeSliceDag(w.root, w.sid, [{ id: "a" }, { id: "b" }], [
    { from: "a", to: "b" },
    { from: "b", to: "a" },
  ]);
  assertMatch((await check()).json.message, /cycle: (a → b → a|b → a → b)/);
  await writeSliceDag(w.root, w.sid, [{ id: "a", owns: ["src/"] }, {
    id: "b",
    owns: ["src/api.ts"],
  }]);
  const shared = await check();
  assertEquals(shared.json.code, "DAG_INVALID");
  assertMatch(
    shared.json.message,
    /nodes "a" and "b" run at the same level and both own src\/api\.ts \(inside src\)/,
  );
  await writeSliceDag(w.root, w.sid, [{ id: "a", owns: [] }, { id: "b", isolation: null }]);
  const rules = await check();
  assertEquals([rules.code, rules.json.code], [3, "SLICE_PLAN_INVALID"]);
  assertEquals(rules.json.data.problems, [
    'slice "a" names no files or folders it owns (owns)',
    'slice "b" runs beside 1 other(s) without "isolation": "worktree"',
  ]);
  // In sequence, the same paths are fine: the second starts once the first is merged.
  await writeSliceDag(w.root, w.sid, [{ id: "a", owns: ["src/"] }, { id: "b", owns: ["src/"] }], [
    { from: "a", to: "b" },
  ]);
  const ok = await check();
  assertEquals(ok.code, 0, ok.stdout);
  assertEquals(ok.json.data.levels, [["a"], ["b"]]);
  const sent = await runNextAction(ok.json.nextActions[0], {
    cwd: w.root,
    env: { ...w.env, CLAUDECODE: "1" },
  });
  assertEquals([sent.code, sent.json.data.records.length], [0, 1], sent.stdout);
});

Deno.test("cleanup removes the worktree of a slice whose vendor failed (its change kept as a patch), lists and removes orphans; doctor sees them", async () => {
  await using dir = await tempDir("peaks-slices-");
  const w = await world(dir.path, "fail");
  const records = await runSlices(w, [{ id: "a" }]);
  const wt = JSON.parse(await read(w, records.a)).worktree.path as string;
  // Dispatched from Claude Code (CLAUDECODE=1) but detached: the vendor's worktree stays under .git.
  assertStringIncludes(wt, `${await Deno.realPath(w.root)}/.git/peaks-worktrees/p-`);
  await Deno.writeTextFile(join(wt, "src", "half-done.txt"), "partial work\n");
  const doctor = await peaks(w, ["doctor"]);
  const leftover = doctor.json.data.findings.find((f: { id: string }) =>
    f.id === "worktrees.leftover"
  );
  assertMatch(leftover.title, /record-ended/);

  const cleaned = await runNextAction(leftover.fix, { cwd: w.root, env: w.env });
  assertEquals(cleaned.code, 0, cleaned.stdout);
  assertEquals(cleaned.json.data.worktrees.changed.map((c: { action: string }) => c.action), [
    "discarded",
  ]);
  assert(!(await exists(wt)));
  const record = JSON.parse(await read(w, records.a));
  assertEquals(record.worktree.state, "discarded");
  assertStringIncludes(await read(w, record.worktree.patch), "+partial work");
  assertEquals(await worktreePaths(w.root), [await Deno.realPath(w.root)]);

  // Another project of the same repository keeps its slices under its own key: not ours to judge.
  const root = await Deno.realPath(w.root);
  const elsewhere = join(root, ".git", "peaks-worktrees", "p-00000000", "r9", "theirs");
  await git(w.root, "worktree", "add", "-q", "-b", "peaks/r9/theirs", elsewhere);
  const other = await peaks(w, ["doctor"]);
  assert(!other.json.data.findings.some((f: { id: string }) => f.id === "worktrees.orphans"));
  await git(w.root, "worktree", "remove", "--force", elsewhere);
  await git(w.root, "branch", "-D", "peaks/r9/theirs");
  // A worktree in this project's folder that no record names is an orphan.
  const mine = wt.replace(/\/r1\/[^/]+$/, "/r9/lost");
  await git(w.root, "worktree", "add", "-q", "-b", "peaks/r9/lost", mine);
  await Deno.writeTextFile(join(mine, "README.md"), "changed in the orphan\n");
  const seen = await peaks(w, ["doctor"]);
  const finding = seen.json.data.findings.find((f: { id: string }) => f.id === "worktrees.orphans");
  assert(finding, seen.stdout);
  const listed = await runNextAction(finding.fix, { cwd: w.root, env: w.env });
  assertEquals(listed.json.data.worktreeOrphans.length, 1, listed.stdout);
  assertEquals(await exists(mine), true, "listing changes nothing");
  const killed = await runNextAction(listed.json.nextActions.at(-1), { cwd: w.root, env: w.env });
  assertEquals(killed.code, 0, killed.stdout);
  const saved = killed.json.data.worktreeOrphans[0].patch;
  assertStringIncludes(await read(w, saved), "+changed in the orphan");
  assertEquals(await worktreePaths(w.root), [root]);
  assertEquals(await sliceBranches(w.root), []);
});
