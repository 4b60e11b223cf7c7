import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { exists, tempDir } from "../../support/temp.ts";
import { runPeaks } from "../../support/cli.ts";
import { runNextAction } from "../../support/next_actions.ts";
import {
  fillPlaceholders,
  readyRequest,
  transition,
  workspace,
} from "../../support/request_fixture.ts";

Deno.test("a fresh PRD request fails lint once per placeholder, then moves once they are filled", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  const run = { cwd: dir.path };

  const preview = await ws.peaks(
    "request",
    "init",
    "--role",
    "prd",
    "--id",
    "r1",
    "--type",
    "feature",
  );
  assertEquals(preview.code, 0);
  assertEquals(preview.json.data.status, "preview");
  assertEquals(await exists(ws.requestPath("prd", "r1")), false, "a preview writes nothing");
  const placeholders = preview.json.data.placeholders as { line: number; token: string }[];
  assertEquals(placeholders.length, 7);
  assertEquals(placeholders[0], { line: 9, token: "<title>" });

  const apply = await runNextAction(preview.json.nextActions[0], run);
  assertEquals(apply.json.data.status, "created");
  assertEquals(apply.json.data.placeholders, placeholders);
  const text = await Deno.readTextFile(ws.requestPath("prd", "r1"));
  assertStringIncludes(text, "## Goals\n");
  assertStringIncludes(text, "## Acceptance criteria\n");

  const lint = await runNextAction(apply.json.nextActions[0], run);
  assertEquals(lint.code, 3);
  assertEquals(lint.json.data.passed, false);
  assertEquals(lint.json.data.errorCount, 7);
  assertEquals(
    lint.json.data.errors.map((e: { line: number }) => e.line),
    placeholders.map((p) => p.line),
  );

  const refused = await transition(ws, "prd", "r1", "confirmed-by-user");
  assertEquals(refused.code, 3);
  assertEquals(refused.json.code, "LINT_GATE_FAILED");
  assertMatch(
    refused.json.message,
    /^7 lint error\(s\) in \.peaks\/_runtime\/.*prd\/requests\/r1\.md: line 9 <title>; line 15 /,
  );
  assertEquals(refused.json.data.lines, placeholders.map((p) => p.line));
  assertEquals((await runNextAction(refused.json.nextActions[0], run)).json.data.errorCount, 7);

  await fillPlaceholders(ws.requestPath("prd", "r1"));
  const clean = await ws.peaks("request", "lint", "r1", "--role", "prd");
  assertEquals(clean.code, 0);
  assertEquals(clean.json.data.passed, true);

  const confirmed = await runNextAction(clean.json.nextActions[0], run);
  assertEquals(confirmed.code, 0, confirmed.stdout);
  assertEquals(confirmed.json.data.to, "confirmed-by-user");
  const handed = await runNextAction(confirmed.json.nextActions[0], run);
  assertEquals(handed.json.data.to, "handed-off");
  // The workflow's next step after the PRD, not a look at the request.
  assertMatch(handed.json.nextActions[0], /^peaks swarm plan --rid r1 .*--json$/);
  const shown = await ws.peaks("request", "show", "r1", "--role", "prd");
  assertEquals(shown.json.data.state, "handed-off");
  assertEquals(shown.json.data.history.length, 3);
  assertMatch(shown.json.data.history[2], /confirmed-by-user → handed-off$/);
});

Deno.test("qa running without test cases names qa/test-cases/<rid>.md and '## Test cases'", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "qa", "r7");
  const refused = await transition(ws, "qa", "r7", "running");
  assertEquals(refused.code, 3);
  assertEquals(refused.json.code, "PREREQUISITES_MISSING");
  assertStringIncludes(refused.json.message, `qa/test-cases/r7.md is missing`);
  assertStringIncludes(refused.json.message, `"## Test cases"`);
  assertEquals(refused.json.data.missing[0].path, `.peaks/_runtime/${ws.sid}/qa/test-cases/r7.md`);
  assertEquals(refused.json.data.missing[0].headings, ["## Test cases"]);

  const show = await runNextAction(refused.json.nextActions[0], { cwd: dir.path });
  assertEquals(show.json.data.next[0].state, "running");
  assertEquals(show.json.data.next[0].ready, false);
  assertEquals(show.json.data.next[0].missing, refused.json.data.missing);

  await ws.write("qa/test-cases/r7.md", "# Cases\n\n## Test Cases\n\n- TC1\n");
  const misspelt = await transition(ws, "qa", "r7", "running");
  assertEquals(misspelt.json.code, "PREREQUISITES_MISSING");
  assertStringIncludes(misspelt.json.message, `Line 3 has "## Test Cases"`);

  await ws.write("qa/test-cases/r7.md", "# Cases\n\n## Test cases\n\n- TC1\n");
  const running = await transition(ws, "qa", "r7", "running");
  assertEquals(running.code, 0, running.stdout);
  assertEquals(running.json.data.to, "running");
});

Deno.test("an illegal jump is INVALID_TRANSITION (exit 3); a state of another role is a usage error", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "prd", "r1");
  const jump = await transition(ws, "prd", "r1", "handed-off");
  assertEquals(jump.code, 3);
  assertEquals(jump.json.code, "INVALID_TRANSITION");
  assertEquals(jump.json.data.allowed, ["confirmed-by-user", "blocked"]);
  assertEquals(
    (await runNextAction(jump.json.nextActions[0], { cwd: dir.path })).json.data.state,
    "draft",
  );

  const foreign = await transition(ws, "prd", "r1", "running");
  assertEquals(foreign.code, 2);
  assertEquals(foreign.json.code, "INVALID_FLAG_VALUE");
  assertEquals(foreign.json.data.allowed, ["draft", "confirmed-by-user", "handed-off", "blocked"]);
});

Deno.test("init --apply never overwrites a request; it reports already-exists", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "rd", "r2");
  const before = await Deno.readTextFile(ws.requestPath("rd", "r2"));
  const again = await ws.peaks("request", "init", "--role", "rd", "--id", "r2", "--apply");
  assertEquals(again.code, 0);
  assertEquals(again.json.data.status, "already-exists");
  assertEquals(again.json.data.placeholders, []);
  assertEquals(await Deno.readTextFile(ws.requestPath("rd", "r2")), before);
  const lint = await runNextAction(again.json.nextActions[0], { cwd: dir.path });
  assertEquals(lint.code, 0);
});

Deno.test("init for a non-PRD role takes the PRD's type unless --type says otherwise", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await ws.peaks("request", "init", "--role", "prd", "--id", "r3", "--type", "bugfix", "--apply");
  const rd = await ws.peaks("request", "init", "--role", "rd", "--id", "r3", "--apply");
  assertEquals(rd.json.data.type, "bugfix");
  const qa = await ws.peaks("request", "init", "--role", "qa", "--id", "r3", "--type", "docs");
  assertEquals(qa.json.data.type, "docs");
  assertEquals(qa.json.warnings[0].code, "TYPE_MISMATCH");
  const prd = await ws.peaks("request", "init", "--role", "prd", "--id", "r4");
  assertEquals(prd.json.data.type, "feature");
  assertEquals(prd.json.warnings[0].code, "TYPE_DEFAULTED");
});

Deno.test("the session resolves like everywhere else; a missing request offers init", async () => {
  await using dir = await tempDir();
  const none = await runPeaks(["request", "list", "--json"], { cwd: dir.path });
  assertEquals(none.code, 1);
  assertEquals(none.json.code, "NO_ACTIVE_SESSION");
  assertMatch(none.json.nextActions[0], /^peaks workspace init --project /);

  const ws = await workspace(dir.path);
  const missing = await ws.peaks("request", "show", "nope", "--role", "ui");
  assertEquals(missing.code, 1);
  assertEquals(missing.json.code, "REQUEST_NOT_FOUND");
  // No PRD yet: the workflow starts with it, not with a UI request made by hand.
  assertMatch(missing.json.nextActions[0], /^peaks request init --role prd --id nope /);
  const init = await runNextAction(missing.json.nextActions[0], { cwd: dir.path });
  assertEquals(init.json.data.status, "preview");

  // A session chosen by flag is carried into every nextAction.
  const other = await runPeaks([
    "workspace",
    "init",
    "--session-id",
    "2026-01-01-session-aaaaaa",
    "--json",
  ], {
    cwd: dir.path,
  });
  assertEquals(other.code, 0);
  await ws.peaks("workspace", "init", "--session-id", ws.sid);
  const flagged = await ws.peaks(
    "request",
    "init",
    "--role",
    "txt",
    "--id",
    "r5",
    "--apply",
    "--session-id",
    "2026-01-01-session-aaaaaa",
  );
  assertStringIncludes(flagged.json.data.path, "/2026-01-01-session-aaaaaa/");
  assertStringIncludes(flagged.json.nextActions[0], "--session-id 2026-01-01-session-aaaaaa");
  const lint = await runNextAction(flagged.json.nextActions[0], { cwd: dir.path });
  assertStringIncludes(lint.json.data.path, "/2026-01-01-session-aaaaaa/");
  assert(!(await exists(ws.requestPath("txt", "r5"))));
});

Deno.test("bad identifiers never reach the file system", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  const bad = await ws.peaks("request", "init", "--role", "prd", "--id", "../escape", "--apply");
  assertEquals(bad.code, 2);
  assertEquals(bad.json.code, "INVALID_IDENTIFIER");
  const role = await ws.peaks("request", "lint", "r1", "--role", "pm");
  assertEquals(role.code, 2);
  assertEquals(role.json.data.allowed, ["prd", "ui", "rd", "qa", "sc", "txt"]);
});

Deno.test("rd's request before the swarm: REQUEST_NOT_FOUND leads to the PRD's next step, never to init rd", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "prd", "001-a");
  for (const role of ["rd", "ui", "qa", "txt"]) {
    const missing = await ws.peaks("request", "show", "001-a", "--role", role);
    assertEquals(missing.json.code, "REQUEST_NOT_FOUND");
    assertEquals(missing.json.nextActions.length, 1);
    assertMatch(missing.json.nextActions[0], /^peaks request show 001-a --role prd /);
  }
  const next = await runNextAction(
    (await ws.peaks("request", "show", "001-a", "--role", "rd")).json.nextActions[0],
    { cwd: dir.path },
  );
  assertEquals(next.code, 0, next.stdout);
  assertEquals(/request init --role rd/.test(next.json.nextActions.join(" ")), false);
});
