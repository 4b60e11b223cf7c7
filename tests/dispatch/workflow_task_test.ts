/**
 * The task peaks writes for a workflow sub-agent (`sub-agent dispatch rd|qa --request-id <rid>`),
 * read from the record as the sub-agent gets it: what RD's plain brief leaves out, and what a QA
 * re-test's brief says about the run before it.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { tempDir } from "../support/temp.ts";
import { prdText } from "../support/swarm.ts";
import { recordPathOf } from "../support/subagent.ts";
import {
  rdFinished,
  readyRequest,
  TECH_DOC,
  transition,
  type Workspace,
  workspace,
} from "../support/request_fixture.ts";

async function prompt(ws: Workspace, role: string): Promise<string> {
  const args = ["sub-agent", "dispatch", role, "--request-id", "r1", "--ide", "opencode"];
  const sent = await ws.peaks(...args);
  assertEquals(sent.code, 0, sent.stdout + sent.stderr);
  const record = join(ws.root, recordPathOf(ws.root, sent.json.data.record));
  const text = JSON.parse(await Deno.readTextFile(record)).prompt;
  // Closed again, so the next brief of the role is not a second live copy (SUB_AGENT_LIVE).
  const closed = await ws.peaks(
    "sub-agent",
    "finalize",
    "--record",
    record,
    "--outcome",
    "cancelled",
  );
  assertEquals(closed.code, 0, closed.stdout);
  return text;
}

async function planned(root: string): Promise<Workspace> {
  const ws = await workspace(root);
  await ws.write("prd/requests/r1.md", prdText("r1", "feature", "handed-off", "Add a report."));
  await readyRequest(ws, "rd", "r1");
  await ws.write("rd/tech-doc-r1.md", TECH_DOC);
  await ws.write("ui/design-draft-r1.md", "# a draft\n");
  return ws;
}

const swarm = (subAgents: string[]) => JSON.stringify({ rid: "r1", subAgents });

Deno.test("RD's plain brief carries no slice section, and UI's draft only when UI was in the swarm", async () => {
  await using dir = await tempDir("peaks-rd-brief-");
  const ws = await planned(dir.path);
  await ws.write("sc/swarm-plan-r1.json", swarm(["rd-planning", "qa-test-cases"]));
  const without = await prompt(ws, "rd");
  assert(!/slice/i.test(without), "a slice section in a plain RD brief");
  assertStringIncludes(without, "rd/tech-doc-r1.md");
  assert(!without.includes("design-draft"), "UI was not in the swarm");
  // The PRD is named by its file: `request show` prints a summary, not the PRD.
  assertMatch(without, /The PRD: \.peaks\/_runtime\/[^/]+\/prd\/requests\/r1\.md\./);

  await ws.write("sc/swarm-plan-r1.json", swarm(["ui", "rd-planning", "qa-test-cases"]));
  const withUi = await prompt(ws, "rd");
  assertStringIncludes(withUi, "ui/design-draft-r1.md");
});

Deno.test("a QA re-test brief says which run it is and what changed, and grows the report", async () => {
  await using dir = await tempDir("peaks-qa-brief-");
  const ws = await planned(dir.path);
  await readyRequest(ws, "qa", "r1");
  await ws.write("rd/code-review-r1.md", "# Review\n\n## Findings\n\nNone.\n");
  await ws.write("qa/test-cases/r1.md", "## Test cases\n\n- TC1\n");
  await rdFinished(ws, "r1");
  for (const state of ["spec-locked", "implemented", "qa-handoff"]) {
    assertEquals((await transition(ws, "rd", "r1", state)).code, 0, state);
  }
  assertEquals((await transition(ws, "qa", "r1", "running")).code, 0);
  const first = await prompt(ws, "qa");
  assertStringIncludes(first, "You test it as QA.");
  assert(!first.includes("You re-test it"), "the first run is no re-test");

  const report = "## Test execution\n\n- TC1 failed: off by one\n";
  await ws.write("qa/test-reports/r1.md", report);
  const returned = await transition(ws, "qa", "r1", "verdict-issued", "--verdict", "return-to-rd");
  assertEquals(returned.code, 0, returned.stdout);
  assertEquals((await transition(ws, "rd", "r1", "implemented")).code, 0);
  await ws.write("rd/code-review-r1.md", "# Review\n\n## Findings\n\nFixed the offset.\n");
  await rdFinished(ws, "r1", ["src/fix.ts"]);
  const handed = await transition(ws, "rd", "r1", "qa-handoff");
  assertEquals(handed.code, 0, handed.stdout);
  assertEquals((await transition(ws, "qa", "r1", "running")).code, 0);

  const again = await prompt(ws, "qa");
  assertStringIncludes(again, "re-test 1 (test run 2)");
  assertStringIncludes(again, "qa/test-reports/r1.md");
  assertStringIncludes(again, "rd/code-review-r1.md");
  assertStringIncludes(again, "Keep the earlier runs");
  assertStringIncludes(again, "## Re-test 1");
  // The report of the first run does not pass for the re-test; the grown one does.
  const stale = await transition(ws, "qa", "r1", "verdict-issued", "--verdict", "pass");
  assertEquals([stale.code, stale.json.code], [3, "PREREQUISITES_MISSING"], stale.stdout);
  await ws.write("qa/test-reports/r1.md", `${report}\n## Re-test 1\n\n- TC1 passed\n`);
  const passed = await transition(ws, "qa", "r1", "verdict-issued", "--verdict", "pass");
  assertEquals(passed.code, 0, passed.stdout);
  assertStringIncludes(
    await Deno.readTextFile(join(dir.path, `.peaks/_runtime/${ws.sid}/qa/test-reports/r1.md`)),
    "TC1 failed: off by one",
  );
});
