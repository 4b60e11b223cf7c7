import { assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { tempDir } from "../../support/temp.ts";
import { runPeaks } from "../../support/cli.ts";
import { runNextAction } from "../../support/next_actions.ts";
import { readyRequest, transition, workspace } from "../../support/request_fixture.ts";

Deno.test("list groups requests by id in role order and filters by role and state", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "qa", "b");
  await readyRequest(ws, "prd", "b", "bugfix");
  await readyRequest(ws, "prd", "a");
  await transition(ws, "prd", "a", "confirmed-by-user");
  const all = await ws.peaks("request", "list");
  assertEquals(all.code, 0);
  assertEquals(
    all.json.data.requests.map((r: { rid: string; role: string; state: string }) =>
      `${r.rid}/${r.role}/${r.state}`
    ),
    ["a/prd/confirmed-by-user", "b/prd/draft", "b/qa/draft"],
  );
  assertEquals(all.json.data.requests[1].type, "bugfix");
  const prd = await ws.peaks("request", "list", "--role", "prd", "--state", "draft");
  assertEquals(prd.json.data.requests.map((r: { rid: string }) => r.rid), ["b"]);
  const limited = await ws.peaks("request", "list", "--limit", "1");
  assertEquals(limited.json.data.truncated, true);
  assertEquals(limited.json.data.total, 3);
});

Deno.test("a broken request file is a warning in list and RECORD_UNREADABLE in show", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "prd", "good");
  await ws.write("prd/requests/bad.md", "no front matter here\n");
  await ws.write(
    "rd/requests/odd.md",
    "---\nrid: odd\nrole: rd\ntype: feature\nstate: flying\ncreatedAt: x\nupdatedAt: x\n---\n",
  );
  const list = await ws.peaks("request", "list");
  assertEquals(list.code, 0);
  assertEquals(list.json.data.requests.map((r: { rid: string }) => r.rid), ["good"]);
  assertEquals(list.json.warnings.map((w: { code: string }) => w.code), [
    "RECORD_UNREADABLE",
    "RECORD_UNREADABLE",
  ]);
  assertStringIncludes(list.json.warnings[1].message, `state "flying" is not a rd state`);
  const show = await ws.peaks("request", "show", "bad", "--role", "prd");
  assertEquals(show.code, 1);
  assertEquals(show.json.code, "RECORD_UNREADABLE");
  const move = await transition(ws, "rd", "odd", "spec-locked");
  assertEquals(move.json.code, "RECORD_UNREADABLE");
});

Deno.test("show reports the body, lint counts, history and what the next state needs", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await ws.peaks("request", "init", "--role", "rd", "--id", "r1", "--type", "bugfix", "--apply");
  const draft = await ws.peaks("request", "show", "r1", "--role", "rd");
  assertEquals(draft.code, 0);
  assertEquals(draft.json.data.type, "bugfix");
  assertEquals(draft.json.data.lint.errorCount > 0, true);
  assertMatch(draft.json.data.body, /^# RD r1: <title>/);
  assertEquals(draft.json.data.next.map((n: { state: string }) => n.state), [
    "spec-locked",
    "blocked",
  ]);
  assertEquals(draft.json.data.next[0].missing[0].headings, ["## Root cause", "## Fix approach"]);
  const lint = await runNextAction(draft.json.nextActions[0], { cwd: dir.path });
  assertEquals(lint.code, 3);

  await readyRequest(ws, "rd", "r1");
  await ws.write(
    "rd/bug-analysis-r1.md",
    "## Root cause\n\nOff by one.\n\n## Fix approach\n\nClamp.\n",
  );
  const ready = await ws.peaks("request", "show", "r1", "--role", "rd");
  assertEquals(ready.json.data.next[0].ready, true);
  const moved = await runNextAction(ready.json.nextActions[0], { cwd: dir.path });
  assertEquals(moved.json.data.to, "spec-locked");

  const human = await runPeaks(
    ["request", "show", "r1", "--role", "rd"],
    { cwd: dir.path },
  );
  assertMatch(human.stdout, /^rd r1 \(bugfix\): spec-locked\n/);
  // Briefs say "The PRD: `peaks request show <rid> --role prd`": without --json it prints the document.
  assertMatch(human.stdout, /\n# RD r1: /);
});
