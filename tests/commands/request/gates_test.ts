import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { tempDir } from "../../support/temp.ts";
import { runPeaks } from "../../support/cli.ts";
import { runNextAction } from "../../support/next_actions.ts";
import {
  rdFinished,
  readyRequest,
  TECH_DOC,
  transition,
  type Workspace,
  workspace,
} from "../../support/request_fixture.ts";
import { STANDARDS_BEGIN, STANDARDS_END } from "../../../lib/standards/block.ts";

const STACK_BLOCK =
  `${STANDARDS_BEGIN}\n## Stack\n- TypeScript 5 with React 18\n${STANDARDS_END}\n`;

async function walk(
  ws: Workspace,
  role: string,
  rid: string,
  states: string[],
  ...extra: string[]
) {
  for (const state of states) {
    const result = await transition(ws, role, rid, state, ...extra);
    assertEquals(result.code, 0, `${role} -> ${state}: ${result.stdout}`);
    assertEquals(result.json.data.to, state);
  }
}

Deno.test("every role walks its whole graph once its artefacts exist", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  for (const role of ["prd", "ui", "rd", "qa", "sc", "txt"]) await readyRequest(ws, role, "r1");
  await ws.write("ui/design-draft-r1.md", "# Draft\n\nCards on a grid.\n");
  await ws.write("rd/tech-doc-r1.md", TECH_DOC);
  await rdFinished(ws, "r1");
  await ws.write("rd/code-review-r1.md", "# Review\n\n## Findings\n\nNone blocking.\n");
  await ws.write("qa/test-cases/r1.md", "## Test cases\n\n- TC1\n");
  await ws.write("qa/test-reports/r1.md", "## Test execution\n\n- TC1 passed\n");
  await ws.write("sc/r1-impact.md", "# Impact\n");
  await ws.write("txt/handoff-r1.md", "# Handoff\n");
  await Deno.writeTextFile(`${dir.path}/CLAUDE.md`, `# Project\n\n${STACK_BLOCK}`);

  await walk(ws, "prd", "r1", ["confirmed-by-user", "handed-off"]);
  await walk(ws, "ui", "r1", ["direction-locked", "handed-off"]);
  await walk(ws, "rd", "r1", ["spec-locked", "implemented", "qa-handoff"]);
  await walk(ws, "qa", "r1", ["running"]);
  await walk(ws, "qa", "r1", ["verdict-issued"], "--verdict", "pass");
  await walk(ws, "sc", "r1", ["impact-recorded", "boundary-recorded", "handed-off"]);
  await walk(ws, "txt", "r1", ["finalized"]);

  const qa = await Deno.readTextFile(ws.requestPath("qa", "r1"));
  assertMatch(qa, /\nstate: verdict-issued\nverdict: pass\n/);
  const list = await ws.peaks("request", "list");
  assertEquals(
    list.json.data.requests.map((r: { role: string; state: string }) => `${r.role}:${r.state}`),
    [
      "prd:handed-off",
      "ui:handed-off",
      "rd:qa-handoff",
      "qa:verdict-issued",
      "sc:handed-off",
      "txt:finalized",
    ],
  );
});

Deno.test("each role refuses a skipped step and moving past its last state", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  const cases: [string, string][] = [
    ["prd", "handed-off"],
    ["ui", "handed-off"],
    ["rd", "implemented"],
    ["rd", "qa-handoff"],
    ["qa", "verdict-issued"],
    ["sc", "boundary-recorded"],
    ["sc", "handed-off"],
  ];
  for (const [role, state] of cases) {
    await readyRequest(ws, role, "r1");
    const extra = state === "verdict-issued" ? ["--verdict", "pass"] : [];
    const result = await transition(ws, role, "r1", state, ...extra);
    assertEquals(result.code, 3, `${role} draft -> ${state}`);
    assertEquals(result.json.code, "INVALID_TRANSITION");
  }
  await readyRequest(ws, "txt", "r1");
  const back = await transition(ws, "txt", "r1", "draft");
  assertEquals(back.code, 0, "same state is a no-op");
  assertEquals(back.json.data.changed, false);
});

Deno.test("blocked from anywhere needs a reason and returns only where it came from", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "prd", "r1");
  await walk(ws, "prd", "r1", ["confirmed-by-user"]);
  const noReason = await transition(ws, "prd", "r1", "blocked");
  assertEquals(noReason.code, 2);
  assertEquals(noReason.json.data.flag, "reason");

  const blocked = await transition(
    ws,
    "prd",
    "r1",
    "blocked",
    "--reason",
    "waiting for <legal> review",
  );
  assertEquals(blocked.code, 0);
  assertEquals(blocked.json.data.blockedFrom, "confirmed-by-user");
  const file = await Deno.readTextFile(ws.requestPath("prd", "r1"));
  assertStringIncludes(
    file,
    "blockedFrom: confirmed-by-user\nblockedReason: waiting for <legal> review\n",
  );
  const lint = await ws.peaks("request", "lint", "r1", "--role", "prd");
  assertEquals(lint.json.data.passed, true, "the reason in the history is not a placeholder");

  const skip = await transition(ws, "prd", "r1", "handed-off");
  assertEquals(skip.json.code, "INVALID_TRANSITION");
  assertEquals(skip.json.data.allowed, ["confirmed-by-user"]);
  const resumed = await transition(ws, "prd", "r1", "confirmed-by-user");
  assertEquals(resumed.code, 0);
  assertEquals(resumed.json.data.kind, "unblock");
  assert(!("blockedFrom" in resumed.json.data));
  assert(!(await Deno.readTextFile(ws.requestPath("prd", "r1"))).includes("blockedFrom"));
  await walk(ws, "prd", "r1", ["handed-off"]);
});

Deno.test("QA's verdict is a required flag, recorded in the front matter, and cannot change", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "qa", "r1", "docs");
  await walk(ws, "qa", "r1", ["running"]);
  const missing = await transition(ws, "qa", "r1", "verdict-issued");
  assertEquals(missing.code, 2);
  assertEquals(missing.json.data.allowed, ["pass", "return-to-rd", "blocked"]);
  const stray = await transition(ws, "qa", "r1", "running", "--verdict", "pass");
  assertEquals(stray.code, 2);
  const issued = await transition(ws, "qa", "r1", "verdict-issued", "--verdict", "return-to-rd");
  assertEquals(issued.code, 0, issued.stdout);
  assertEquals(issued.json.data.verdict, "return-to-rd");
  const again = await transition(ws, "qa", "r1", "verdict-issued", "--verdict", "return-to-rd");
  assertEquals(again.json.data.changed, false);
  const changed = await transition(ws, "qa", "r1", "verdict-issued", "--verdict", "pass");
  assertEquals(changed.code, 3);
  assertEquals(changed.json.code, "INVALID_TRANSITION");
  const show = await ws.peaks("request", "show", "r1", "--role", "qa");
  assertEquals(show.json.data.verdict, "return-to-rd");
});

Deno.test("Gate G: txt finalized needs the handoff and CLAUDE.md naming the stack", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "txt", "r1", "chore");
  const first = await transition(ws, "txt", "r1", "finalized");
  assertEquals(first.code, 3);
  assertEquals(first.json.code, "PREREQUISITES_MISSING");
  assertEquals(first.json.data.missing.map((m: { path: string }) => m.path), [
    `.peaks/_runtime/${ws.sid}/txt/handoff-r1.md`,
    "CLAUDE.md",
  ]);
  assertStringIncludes(first.json.message, "CLAUDE.md is missing: Gate G");
  assert(first.json.data.instructions.some((i: string) => i.includes("peaks standards")));

  await ws.write("txt/handoff-r1.md", "# Handoff\n");
  await Deno.writeTextFile(`${dir.path}/CLAUDE.md`, "# Rules written by hand\n");
  const second = await transition(ws, "txt", "r1", "finalized");
  assertEquals(second.json.data.missing.map((m: { kind: string }) => m.kind), [
    "standards-block-missing",
  ]);

  await Deno.writeTextFile(`${dir.path}/CLAUDE.md`, `# Rules\n\n${STACK_BLOCK}`);
  const done = await transition(ws, "txt", "r1", "finalized");
  assertEquals(done.code, 0, done.stdout);
});

Deno.test("in assisted and strict modes the key transitions need --confirm", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "prd", "r1");
  assertEquals(
    (await ws.peaks("skill", "presence:set", "peaks-code", "--mode", "assisted")).code,
    0,
  );
  const refused = await transition(ws, "prd", "r1", "confirmed-by-user");
  assertEquals(refused.code, 3);
  assertEquals(refused.json.code, "CONFIRMATION_REQUIRED");
  assertEquals(
    refused.json.nextActions[0],
    `peaks request transition r1 --role prd --state confirmed-by-user --confirm --project ${dir.path} --json`,
  );
  const confirmed = await runNextAction(refused.json.nextActions[0], { cwd: dir.path });
  assertEquals(confirmed.code, 0, confirmed.stdout);
  assertEquals(confirmed.json.data.confirmed, true);
  assertMatch(
    await Deno.readTextFile(ws.requestPath("prd", "r1")),
    /draft → confirmed-by-user \(confirmed\)\n/,
  );
  await walk(ws, "prd", "r1", ["handed-off"]);

  // strict, per caller window: the caller's own presence decides.
  const caller = { ...ws.env, PEAKS_CALLER_ID: "window-1" };
  await runPeaks(["skill", "presence:set", "peaks-code", "--mode", "strict", "--json"], {
    cwd: dir.path,
    env: caller,
  });
  await readyRequest(ws, "txt", "r2");
  await ws.write("txt/handoff-r2.md", "# Handoff\n");
  await Deno.writeTextFile(`${dir.path}/CLAUDE.md`, STACK_BLOCK);
  const strict = await runPeaks(
    ["request", "transition", "r2", "--role", "txt", "--state", "finalized", "--json"],
    { cwd: dir.path, env: caller },
  );
  assertEquals(strict.json.code, "CONFIRMATION_REQUIRED");
  assertEquals(strict.json.data.mode, "strict");

  // full-auto decides alone.
  await ws.peaks("skill", "presence:set", "peaks-code", "--mode", "full-auto");
  await readyRequest(ws, "prd", "r3");
  const auto = await transition(ws, "prd", "r3", "confirmed-by-user");
  assertEquals(auto.code, 0, auto.stdout);
});

Deno.test("a confirmation never spends an allow-incomplete use, and the nextAction keeps every flag", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await ws.peaks("skill", "presence:set", "peaks-code", "--mode", "assisted");
  await ws.peaks("request", "init", "--role", "prd", "--id", "r1", "--apply");
  const refused = await transition(
    ws,
    "prd",
    "r1",
    "confirmed-by-user",
    "--allow-incomplete",
    "--reason",
    "user's draft, shipped as is",
  );
  assertEquals(refused.json.code, "CONFIRMATION_REQUIRED");
  assertStringIncludes(
    refused.json.nextActions[0],
    `--reason 'user'\\''s draft, shipped as is' --allow-incomplete --confirm`,
  );
  const list = await ws.peaks("request", "show", "r1", "--role", "prd");
  assertEquals(list.json.data.state, "draft");
  const done = await runNextAction(refused.json.nextActions[0], { cwd: dir.path });
  assertEquals(done.code, 0, done.stdout);
  assertEquals(done.json.data.allowIncomplete.remaining, 2);
});
