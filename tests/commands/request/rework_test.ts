import { assertEquals, assertMatch } from "@std/assert";
import { tempDir } from "../../support/temp.ts";
import {
  rdFinished,
  readyRequest,
  TECH_DOC,
  transition,
  workspace,
} from "../../support/request_fixture.ts";
import { runNextAction } from "../../support/next_actions.ts";

Deno.test("the RD-QA repair loop: back edges open only after return-to-rd, at most 3 re-tests", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "rd", "r1");
  await readyRequest(ws, "qa", "r1");
  await ws.write("rd/tech-doc-r1.md", TECH_DOC);
  await rdFinished(ws, "r1");
  await ws.write("rd/code-review-r1.md", "# Review\n\n## Findings\n\nNone.\n");
  await ws.write("qa/test-cases/r1.md", "## Test cases\n\n- TC1\n");
  await ws.write("qa/test-reports/r1.md", "## Test execution\n\n- TC1 failed\n");
  for (const state of ["spec-locked", "implemented", "qa-handoff"]) {
    assertEquals((await transition(ws, "rd", "r1", state)).code, 0, state);
  }
  assertEquals((await transition(ws, "qa", "r1", "running")).code, 0);

  // Before any return-to-rd verdict the back edges stay shut.
  const early = await transition(ws, "rd", "r1", "implemented");
  assertEquals(early.code, 3);
  assertEquals(early.json.code, "INVALID_TRANSITION");
  const pass = await transition(ws, "qa", "r1", "verdict-issued", "--verdict", "pass");
  assertEquals(pass.code, 0);
  const afterPass = await transition(ws, "qa", "r1", "running");
  assertEquals(afterPass.json.code, "INVALID_TRANSITION");
  assertMatch(afterPass.json.message, /not return-to-rd/);

  // A fresh request id goes round the loop three times.
  await readyRequest(ws, "rd", "r2");
  await readyRequest(ws, "qa", "r2");
  await ws.write("qa/test-cases/r2.md", "## Test cases\n\n- TC1\n");
  await ws.write("qa/test-reports/r2.md", "## Test execution\n\n- TC1 failed\n");
  await ws.write("rd/code-review-r2.md", "# Review\n\n## Findings\n\nNone.\n");
  await ws.write("rd/tech-doc-r2.md", TECH_DOC);
  await rdFinished(ws, "r2");
  for (const state of ["spec-locked", "implemented", "qa-handoff"]) {
    await transition(ws, "rd", "r2", state);
  }
  await transition(ws, "qa", "r2", "running");
  let report = "## Test execution\n\n- TC1 failed\n";
  for (let round = 1; round <= 3; round++) {
    if (round > 1) {
      // A re-test's verdict needs its own section of the report, written during the re-test.
      const early = await transition(ws, "qa", "r2", "verdict-issued", "--verdict", "return-to-rd");
      assertEquals([early.code, early.json.code], [3, "PREREQUISITES_MISSING"], early.stdout);
      report += `\n## Re-test ${round - 1}\n\n- TC1 failed again\n`;
      await ws.write("qa/test-reports/r2.md", report);
    }
    const verdict = await transition(ws, "qa", "r2", "verdict-issued", "--verdict", "return-to-rd");
    assertEquals(verdict.code, 0, verdict.stdout);
    const [back] = verdict.json.nextActions;
    assertMatch(back, /--role rd --state implemented/);
    const rd = await runNextAction(back, { cwd: dir.path });
    assertEquals(rd.code, 0, rd.stdout);
    assertEquals(rd.json.data.kind, "rework");
    // RD's sub-agent of the earlier round does not hand the rework to QA: RD works again first.
    const idle = await transition(ws, "rd", "r2", "qa-handoff");
    assertEquals([idle.code, idle.json.code], [3, "RD_WORK_MISSING"], idle.stdout);
    assertEquals(idle.json.data.reason, "no-rd-record");
    await rdFinished(ws, "r2", [`src/fix-${round}.ts`]);
    // Round one's code review does not hand the rework to QA: RD reviews its new diff first.
    const stale = await transition(ws, "rd", "r2", "qa-handoff");
    assertEquals([stale.code, stale.json.code], [3, "PREREQUISITES_MISSING"], stale.stdout);
    assertEquals(stale.json.data.missing[0].kind, "stale");
    await ws.write("rd/code-review-r2.md", `# Review\n\n## Findings\n\nRound ${round}: fixed.\n`);
    assertEquals((await transition(ws, "rd", "r2", "qa-handoff")).code, 0);
    const retest = await transition(ws, "qa", "r2", "running");
    assertEquals(retest.code, 0, retest.stdout);
    assertEquals(retest.json.warnings[0].code, "REWORK_ROUND");
    const text = await Deno.readTextFile(ws.requestPath("qa", "r2"));
    assertMatch(text, new RegExp(`\\nreworkRound: ${round}\\n`));
    assertEquals(/\nverdict:/.test(text), false, "the old verdict is cleared for the re-test");
  }
  await ws.write("qa/test-reports/r2.md", `${report}\n## Re-test 3\n\n- TC1 failed\n`);
  await transition(ws, "qa", "r2", "verdict-issued", "--verdict", "return-to-rd");
  const limit = await transition(ws, "qa", "r2", "running");
  assertEquals(limit.code, 3);
  assertEquals(limit.json.code, "REWORK_LIMIT_REACHED");
  const block = await runNextAction(limit.json.nextActions[0], { cwd: dir.path });
  assertEquals(block.code, 0, block.stdout);
  assertEquals(block.json.data.to, "blocked");
});
