/**
 * The end of the workflow: after txt finalized, one step shows the change, proposes the commit
 * and waits for the user; the request closes only with the user's decision; a next request on a
 * changed tree starts with a warning that says how many files and why.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { tempDir } from "../../support/temp.ts";
import { runNextAction } from "../../support/next_actions.ts";
import {
  rdFinished,
  readyRequest,
  TECH_DOC,
  transition,
  workspace,
} from "../../support/request_fixture.ts";
import { STANDARDS_BEGIN, STANDARDS_END } from "../../../lib/standards/block.ts";

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

async function finished(root: string) {
  await git(root, "init", "-q");
  await Deno.writeTextFile(`${root}/app.js`, "export const a = 1;\n");
  await Deno.writeTextFile(
    `${root}/CLAUDE.md`,
    `# Project\n\n${STANDARDS_BEGIN}\n## Stack\n- JavaScript\n${STANDARDS_END}\n`,
  );
  const ws = await workspace(root);
  await git(root, "add", "-A");
  await git(root, "commit", "-q", "-m", "start");
  await readyRequest(ws, "prd", "r1");
  const prd = await Deno.readTextFile(ws.requestPath("prd", "r1"));
  await Deno.writeTextFile(
    ws.requestPath("prd", "r1"),
    prd.replace(/^# PRD r1: .*$/m, "# PRD r1: Count the todos"),
  );
  await readyRequest(ws, "txt", "r1");
  await ws.write("txt/handoff-r1.md", "# Handoff\n");
  assertEquals((await transition(ws, "txt", "r1", "finalized")).code, 0);
  await Deno.writeTextFile(`${root}/app.js`, "export const a = 2;\n");
  await Deno.writeTextFile(`${root}/count.js`, "export const n = 0;\n");
  await Deno.mkdir(`${root}/.claude`, { recursive: true });
  await Deno.writeTextFile(`${root}/.claude/settings.json`, "{}\n");
  return ws;
}

Deno.test("request close shows the change and the commit message, and closes only with a decision", async () => {
  await using dir = await tempDir();
  const ws = await finished(dir.path);

  const shown = await ws.peaks("request", "close", "r1");
  assertEquals(shown.code, 0, shown.stdout);
  const data = shown.json.data;
  assertEquals(data.closed, false);
  assertEquals(data.total, 2);
  assertEquals(data.files, [" M app.js", "?? count.js"]);
  // peaks' own files are apart: the user decides on them; they never hold the close back.
  assertEquals(data.peaksFiles, ["?? .claude/settings.json"]);
  assertMatch(data.options[0].command, / --json( |$)/);
  assertMatch(data.diffStat, /1 file changed/);
  assertEquals(data.commitMessage, "feat(r1): Count the todos");
  assertMatch(data.waitingFor, /^the user/);
  assertEquals(shown.json.nextActions, []);
  assertMatch(data.options[0].command, /request close r1 --decision committed/);

  // "committed" while the files are still changed is refused.
  const early = await ws.peaks("request", "close", "r1", "--decision", "committed");
  assertEquals(early.code, 3);
  assertEquals(early.json.code, "CHANGES_UNCOMMITTED");

  // A next request on this tree starts with a warning naming the count and the reason.
  const next = await ws.peaks(
    "request",
    "init",
    "--role",
    "prd",
    "--id",
    "r2",
    "--type",
    "feature",
    "--apply",
  );
  assertEquals(next.code, 0, next.stdout);
  const dirty = next.json.warnings.find((w: { code: string }) => w.code === "TREE_DIRTY");
  assertMatch(dirty.message, /^2 file\(s\) outside \.peaks\/ are changed/);

  await git(dir.path, "add", "app.js", "count.js");
  await git(dir.path, "commit", "-q", "-m", data.commitMessage);
  const closed = await ws.peaks("request", "close", "r1", "--decision", "committed");
  assertEquals(closed.code, 0, closed.stdout);
  assertEquals(closed.json.data.closed, true);
  const again = await ws.peaks("request", "close", "r1");
  assertEquals(again.json.data.closed, true);
});

Deno.test("request close refuses a request whose txt is not finalized", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "prd", "r1");
  const result = await ws.peaks("request", "close", "r1");
  assertEquals(result.code, 3);
  assertEquals(result.json.code, "REQUEST_NOT_FINISHED");
  assert(!result.stdout.includes("stack"));
});

Deno.test("a request the user drops is closed as abandoned in any state: not open, no next step", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "prd", "r1");
  await readyRequest(ws, "prd", "r2");
  const before = await ws.peaks("session", "start");
  assertEquals(before.json.data.requests.map((r: { rid: string }) => r.rid), ["r1", "r2"]);
  const dropped = await ws.peaks("request", "close", "r1", "--decision", "abandoned");
  assertEquals(dropped.code, 0, dropped.stdout);
  assertEquals([dropped.json.data.closed, dropped.json.data.decision], [true, "abandoned"]);
  // Nothing of the request changed: its PRD stays a draft.
  const show = await ws.peaks("request", "show", "r1", "--role", "prd");
  assertEquals(show.json.data.state, "draft");
  assertEquals(show.json.nextActions, []);
  assertMatch(show.json.data.step.waitingFor, /abandoned/);
  const after = await ws.peaks("session", "start");
  assertEquals(after.json.data.requests.map((r: { rid: string }) => r.rid), ["r2"]);
  // Again: already closed, as it was.
  const again = await ws.peaks("request", "close", "r1", "--decision", "abandoned");
  assertEquals([again.code, again.json.data.decision], [0, "abandoned"]);
  // committed and uncommitted still need a finished request; an unknown one cannot be abandoned.
  const early = await ws.peaks("request", "close", "r2", "--decision", "committed");
  assertEquals(early.json.code, "REQUEST_NOT_FINISHED");
  const unknown = await ws.peaks("request", "close", "r9", "--decision", "abandoned");
  assertEquals([unknown.code, unknown.json.code], [1, "REQUEST_NOT_FOUND"]);
  assertMatch(unknown.json.nextActions[0], /^peaks request list /);
  const listed = await runNextAction(unknown.json.nextActions[0], { cwd: dir.path });
  assertEquals(listed.code, 0, listed.stdout);
});

Deno.test("after txt finalized the chain's next step is request close, then nothing", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  for (const role of ["rd", "qa", "sc", "txt"]) await readyRequest(ws, role, "r1", "chore");
  await ws.write("rd/tech-doc-r1.md", TECH_DOC);
  await rdFinished(ws, "r1");
  await ws.write("rd/code-review-r1.md", "# Review\n\n## Findings\n\nNone blocking.\n");
  await ws.write("qa/test-reports/r1.md", "## Test execution\n\n- TC1 passed\n");
  await ws.write("sc/r1-impact.md", "# Impact\n");
  await ws.write("txt/handoff-r1.md", "# Handoff\n");
  await Deno.writeTextFile(
    `${dir.path}/CLAUDE.md`,
    `# Project\n\n${STANDARDS_BEGIN}\n## Stack\n- JavaScript\n${STANDARDS_END}\n`,
  );
  const steps: [string, string, ...string[]][] = [
    ["rd", "spec-locked"],
    ["rd", "implemented"],
    ["rd", "qa-handoff"],
    ["qa", "running"],
    ["qa", "verdict-issued", "--verdict", "pass"],
    ["sc", "impact-recorded"],
    ["sc", "boundary-recorded"],
    ["sc", "handed-off"],
    ["txt", "finalized"],
  ];
  for (const [role, state, ...extra] of steps) {
    const moved = await transition(ws, role, "r1", state, ...extra);
    assertEquals(moved.code, 0, `${role} ${state}: ${moved.stdout}`);
  }
  const show = await ws.peaks("request", "show", "r1", "--role", "txt");
  assertMatch(show.json.nextActions[0], /^peaks request close r1( --project \S+)? --json$/);
  const closed = await ws.peaks("request", "close", "r1", "--decision", "uncommitted");
  assertEquals(closed.code, 0, closed.stdout);
  const after = await ws.peaks("request", "show", "r1", "--role", "txt");
  assertEquals(after.json.nextActions, []);
  assertMatch(after.json.data.step.waitingFor, /closed/);
});

Deno.test("peaks' own setup files left uncommitted do not make a tree dirty; a user's file does", async () => {
  await using dir = await tempDir();
  await git(dir.path, "init", "-q");
  await Deno.writeTextFile(`${dir.path}/app.js`, "export const a = 1;\n");
  const ws = await workspace(dir.path);
  await git(dir.path, "add", "app.js");
  await git(dir.path, "commit", "-q", "-m", "start");
  // What a first session start leaves in a fresh project.
  await Deno.writeTextFile(`${dir.path}/CLAUDE.md`, `${STANDARDS_BEGIN}\n${STANDARDS_END}\n`);
  await Deno.writeTextFile(`${dir.path}/AGENTS.md`, `${STANDARDS_BEGIN}\n${STANDARDS_END}\n`);
  await Deno.mkdir(`${dir.path}/.claude/skills/peaks-code`, { recursive: true });
  await Deno.writeTextFile(`${dir.path}/.claude/skills/peaks-code/SKILL.md`, "# skill\n");
  await Deno.writeTextFile(`${dir.path}/.claude/settings.json`, "{}\n");
  const init = (id: string) =>
    ws.peaks("request", "init", "--role", "prd", "--id", id, "--type", "feature", "--apply");
  const clean = await init("r1");
  assertEquals(clean.code, 0, clean.stdout);
  const codes = clean.json.warnings.map((w: { code: string }) => w.code);
  assert(!codes.includes("TREE_DIRTY"), clean.stdout);

  await Deno.writeTextFile(`${dir.path}/app.js`, "export const a = 2;\n");
  const dirty = await init("r2");
  const warning = dirty.json.warnings.find((w: { code: string }) => w.code === "TREE_DIRTY");
  assertMatch(warning.message, /^1 file\(s\) outside \.peaks\/ are changed/);
});
