import { z } from "../../../lib/infra/zod.ts";
import { assert, assertEquals, assertMatch } from "@std/assert";
import { runActions, runNextAction } from "../../support/next_actions.ts";
import { readyRequest, transition } from "../../support/request_fixture.ts";
import { CLAUDE, swarmWorkspace, writePrd, writeScan } from "../../support/swarm.ts";
import { exists, tempDir } from "../../support/temp.ts";
import { runPeaks } from "../../support/cli.ts";
import { readJson, recordPathOf } from "../../support/subagent.ts";
import { swarmPlanSchemas } from "../../../lib/state/swarm_plan.ts";
import { fits } from "../../../lib/infra/shape/shape.ts";
import { SWARM_PLAN_SHAPE } from "../../../lib/state/shapes.ts";
import { sliceDagSchemas } from "../../../lib/state/slice_dag.ts";

const { SwarmPlanSchema } = swarmPlanSchemas(z);
const { DagSchema } = sliceDagSchemas(z);

async function readPlan(root: string, sid: string, rid: string) {
  const text = await Deno.readTextFile(`${root}/.peaks/_runtime/${sid}/sc/swarm-plan-${rid}.json`);
  const value = JSON.parse(text);
  // The plan peaks wrote passes its shape, so reading it back never loads zod.
  assert(fits(SWARM_PLAN_SHAPE, value), text);
  return SwarmPlanSchema.parse(value);
}

/** The brief a pointer tool call leads to, as the sub-agent reads it. */
async function briefOf(root: string, record: string): Promise<string> {
  const brief = await runPeaks(["sub-agent", "brief", "--record", record], { cwd: root });
  assertEquals(brief.code, 0, brief.stderr);
  return brief.stdout;
}

async function readDag(root: string, sid: string, rid: string) {
  const text = await Deno.readTextFile(`${root}/.peaks/_runtime/${sid}/sc/slice-dag-${rid}.json`);
  return DagSchema.parse(JSON.parse(text));
}

Deno.test("feature with a frontend keyword: ui, rd-planning and qa-test-cases; one dispatch launches them", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writePrd(ws, "001-login", { body: "A login 页面 with a Form and remember-me." });
  const plan = await ws.peaks("swarm", "plan", "--rid", "001-login", "--mode", "full-auto");
  assertEquals(plan.code, 0, plan.stdout);
  const data = plan.json.data;
  assertEquals(data.subAgents, ["ui", "rd-planning", "qa-test-cases"]);
  assertEquals(data.matchedKeywords, ["页面", "form"]);
  assertEquals(data.frontendKeywordHit, true);
  assertEquals([data.frontendOnly, data.frontendOnlySource], [false, "absent"]);
  assertEquals([data.mode, data.modeSource, data.choice], ["full-auto", "flag", "full"]);
  assertMatch(data.batchId, /^swarm-001-login-[0-9a-f]{6}$/);

  const stored = await readPlan(dir.path, ws.sid, "001-login");
  assertEquals(stored.subAgents, data.subAgents);
  assertEquals(stored.status, "planned");
  assertEquals(stored.batchId, data.batchId);
  const dag = await readDag(dir.path, ws.sid, "001-login");
  assertEquals(dag.nodes.map((n) => n.id), ["ui", "rd-planning", "qa-test-cases"]);
  assertEquals(dag.edges, []);
  assertEquals(dag.batchId, data.batchId);
  assertEquals(dag.nodes[1].artifacts, [
    `.peaks/_runtime/${ws.sid}/rd/tech-doc-001-login.md`,
    `.peaks/_runtime/${ws.sid}/rd/requests/001-login.md`,
  ]);
  // The task names each file the converge gate checks; the role's skill section rides in the brief.
  assertMatch(
    dag.nodes[0].prompt!,
    new RegExp(`Deliver \\(.*\\):\\n- \\.peaks/_runtime/${ws.sid}/ui/design-draft-001-login\\.md`),
  );

  const presence = await ws.peaks("skill", "presence");
  assertEquals(presence.json.data.gate, "swarm-fan-out");

  assertEquals(plan.json.nextActions, [
    `peaks sub-agent dispatch --from-dag .peaks/_runtime/${ws.sid}/sc/slice-dag-001-login.json --batch-id ${data.batchId} --project ${dir.path} --json`,
  ]);
  const [dispatch] = await runActions(plan.json.nextActions, { cwd: dir.path, env: CLAUDE });
  assertEquals(dispatch.code, 0, dispatch.stdout);
  assertEquals(dispatch.json.data.toolCalls.length, 3);
  assert(!("nextCall" in dispatch.json.data), "one level: no next call");
  // The briefs carry the plan's signals in their runtime arguments, and the role's skill section.
  const brief = await briefOf(dir.path, dispatch.json.data.records[0]);
  assertMatch(brief, /frontendKeywordHit: true/);
  assertMatch(brief, /Request type: feature/);
  // No mode in presence: the plan's mode reaches the sub-agents.
  assertMatch(brief, /- Mode: full-auto/);
  assertMatch(brief, /## Your role: .*\(ui\) \(from the peaks-ui skill\)/);

  // Planning again unchanged keeps the batch, so a repeated call continues the same fan-out.
  const again = await ws.peaks("swarm", "plan", "--rid", "001-login", "--mode", "full-auto");
  assertEquals(again.json.data.batchId, data.batchId);
});

Deno.test("bugfix on the backend: rd-planning and qa-test-cases, no ui", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writeScan(ws, false);
  await writePrd(ws, "002-race", { type: "bugfix", body: "Two exports overwrite each other." });
  const plan = await ws.peaks("swarm", "plan", "--rid", "002-race", "--mode", "24h");
  assertEquals(plan.code, 0, plan.stdout);
  assertEquals(plan.json.data.subAgents, ["rd-planning", "qa-test-cases"]);
  // Decided alone without UI: the plan is backend-only, not "full".
  assertEquals(plan.json.data.choice, "backend-only");
  assertEquals(plan.json.data.frontendOnlySource, "scan");
  assert(!("matchedKeywords" in plan.json.data), "no empty fields");
  const dag = await readDag(dir.path, ws.sid, "002-race");
  assertEquals(dag.nodes[0].artifacts, [
    `.peaks/_runtime/${ws.sid}/rd/bug-analysis-002-race.md`,
    `.peaks/_runtime/${ws.sid}/rd/requests/002-race.md`,
  ]);
  // --choice full, as the user picks it, is UI + RD + QA: UI joins without a frontend signal.
  const full = await ws.peaks(
    "swarm",
    "plan",
    "--rid",
    "002-race",
    "--mode",
    "assisted",
    "--choice",
    "full",
  );
  assertEquals(full.code, 0, full.stdout);
  assertEquals(full.json.data.subAgents, ["ui", "rd-planning", "qa-test-cases"]);
  assertMatch(dag.nodes[0].prompt!, /"## Root cause" and "## Fix approach"/);
});

Deno.test("frontendOnly from the scan brings ui in without any keyword", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writeScan(ws, true);
  await writePrd(ws, "003-cache", { body: "Cache the export results." });
  const plan = await ws.peaks("swarm", "plan", "--rid", "003-cache", "--mode", "swarm");
  assertEquals(plan.json.data.subAgents, ["ui", "rd-planning", "qa-test-cases"]);
  assertEquals([plan.json.data.frontendOnly, plan.json.data.frontendKeywordHit], [true, false]);
});

Deno.test("docs: the swarm is skipped and recorded as such; the nextAction is the RD request", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writePrd(ws, "004-readme", { type: "docs", body: "Document the page layout." });
  const plan = await ws.peaks("swarm", "plan", "--rid", "004-readme");
  assertEquals(plan.code, 0, plan.stdout);
  assert(!("subAgents" in plan.json.data));
  assertEquals(plan.json.data.status, "swarm-skipped");
  assertEquals(plan.json.data.note, "swarm-skipped: type=docs");
  const stored = await readPlan(dir.path, ws.sid, "004-readme");
  assertEquals([stored.note, stored.batchId, stored.choice], [
    "swarm-skipped: type=docs",
    null,
    null,
  ]);
  assert(!(await exists(`${dir.path}/.peaks/_runtime/${ws.sid}/sc/slice-dag-004-readme.json`)));
  // Nothing to converge: the PRD (confirmed, not handed off yet) goes on, then the RD request.
  assertMatch(plan.json.nextActions[0], /--role prd --state handed-off /);
  const [handed] = await runActions(plan.json.nextActions, { cwd: dir.path });
  assertMatch(handed.json.nextActions[0], /^peaks request init --role rd --id 004-readme --apply /);
  const [init] = await runActions(handed.json.nextActions, { cwd: dir.path });
  assertEquals(init.code, 0, init.stdout);
  const [lint] = await runActions(init.json.nextActions, { cwd: dir.path });
  assertEquals([lint.code, lint.json.data.passed], [3, false]);
  const converge = await ws.peaks("swarm", "converge", "--rid", "004-readme");
  assertEquals(converge.code, 0, converge.stdout);
  assertEquals(converge.json.data.outcome, "swarm-skipped");
  assertEquals(converge.json.data.handoffNotes, ["swarm-skipped: type=docs"]);
});

Deno.test("a draft PRD is PRD_NOT_READY (exit 3) whose nextAction is the transition", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  const missing = await ws.peaks("swarm", "plan", "--rid", "005-new");
  assertEquals([missing.code, missing.json.code], [3, "PRD_NOT_READY"]);
  assertMatch(missing.json.nextActions[0], /^peaks request init --role prd --id 005-new/);

  await readyRequest(ws, "prd", "005-new");
  const draft = await ws.peaks("swarm", "plan", "--rid", "005-new", "--mode", "full-auto");
  assertEquals([draft.code, draft.json.code], [3, "PRD_NOT_READY"]);
  assertEquals(draft.json.data.state, "draft");
  assertEquals(draft.json.nextActions, [
    `peaks request transition 005-new --role prd --state confirmed-by-user --project ${dir.path} --json`,
  ]);
  assert(!(await exists(`${dir.path}/.peaks/_runtime/${ws.sid}/sc/swarm-plan-005-new.json`)));
  const [moved] = await runActions(draft.json.nextActions, { cwd: dir.path });
  assertEquals(moved.code, 0, moved.stdout);
  const planned = await ws.peaks("swarm", "plan", "--rid", "005-new", "--mode", "full-auto");
  assertEquals(planned.code, 0, planned.stdout);

  const blocked = await transition(ws, "prd", "005-new", "blocked", "--reason", "scope unclear");
  assertEquals(blocked.code, 0, blocked.stdout);
  const refused = await ws.peaks("swarm", "plan", "--rid", "005-new", "--mode", "full-auto");
  assertEquals(refused.json.data.state, "blocked");
  assertMatch(refused.json.nextActions[0], /--state confirmed-by-user/);
});

Deno.test("assisted mode: needsChoice with three runnable options until --choice; nothing written before", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  const set = await ws.peaks("skill", "presence:set", "peaks-code", "--mode", "assisted");
  assertEquals(set.code, 0, set.stdout);
  await writePrd(ws, "006-table", { body: "Sortable TABLE of invoices." });
  const ask = await ws.peaks("swarm", "plan", "--rid", "006-table");
  assertEquals(ask.code, 0, ask.stdout);
  const data = ask.json.data;
  assertEquals([data.needsChoice, data.mode, data.modeSource], [true, "assisted", "presence"]);
  assertEquals(data.options.map((o: { choice: string }) => o.choice), [
    "full",
    "backend-only",
    "sequential",
  ]);
  assertEquals(data.options[0].subAgents, ["ui", "rd-planning", "qa-test-cases"]);
  assertEquals(ask.json.nextActions, [], "the user picks: no command runs before");
  assert(!(await exists(`${dir.path}/.peaks/_runtime/${ws.sid}/sc/swarm-plan-006-table.json`)));
  assert(!(await exists(`${dir.path}/.peaks/_runtime/${ws.sid}/sc/slice-dag-006-table.json`)));
  assertEquals((await ws.peaks("skill", "presence")).json.data.gate, null);

  // The user picks backend-only: the option's command writes the plan without ui.
  const picked = await runNextAction(data.options[1].command, { cwd: dir.path });
  assertEquals(picked.code, 0, picked.stdout);
  assert(!("needsChoice" in picked.json.data));
  assertEquals(picked.json.data.choice, "backend-only");
  assertEquals(picked.json.data.subAgents, ["rd-planning", "qa-test-cases"]);
  assertEquals((await readPlan(dir.path, ws.sid, "006-table")).mode, "assisted");

  // Strict asks as well; sequential chains RD before QA in the DAG.
  const strict = await ws.peaks("swarm", "plan", "--rid", "006-table", "--mode", "strict");
  assertEquals(strict.json.data.needsChoice, true);
  assertMatch(strict.json.data.options[2].command, /--mode strict --choice sequential .*--json$/);
  const sequential = await runNextAction(strict.json.data.options[2].command, { cwd: dir.path });
  assertEquals(sequential.json.data.subAgents, ["rd-planning", "qa-test-cases"]);
  const dag = await readDag(dir.path, ws.sid, "006-table");
  assertEquals(dag.edges, [{ from: "rd-planning", to: "qa-test-cases" }]);
  assertMatch(dag.nodes[1].prompt!, /RD planning ran before you/);
  const [first] = await runActions(sequential.json.nextActions, { cwd: dir.path, env: CLAUDE });
  const record = await readJson(
    `${dir.path}/${recordPathOf(dir.path, first.json.data.records[0])}`,
  );
  assertEquals([first.json.data.records.length, record.graphNodeId], [1, "rd-planning"]);
  assert(first.json.data.nextCall, "QA test cases follow in the next level");
});

Deno.test("--emit-dag returns the DAG; a mode from preferences counts; a broken scan is a warning", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await Deno.writeTextFile(
    `${dir.path}/.peaks/preferences.json`,
    JSON.stringify({ schema_version: "2.0.0", swarmMode: "full-auto" }),
  );
  await Deno.mkdir(`${dir.path}/.peaks/project-scan`, { recursive: true });
  await Deno.writeTextFile(`${dir.path}/.peaks/project-scan/project-scan.json`, "{broken");
  await writePrd(ws, "007-modal", { body: "Confirm with a modal." });
  const plan = await ws.peaks("swarm", "plan", "--rid", "007-modal", "--emit-dag");
  assertEquals(plan.code, 0, plan.stdout);
  assertEquals([plan.json.data.mode, plan.json.data.modeSource], ["full-auto", "preference"]);
  assertEquals(plan.json.data.frontendOnlySource, "unreadable");
  assertEquals(plan.json.warnings.map((w: { code: string }) => w.code), ["SCAN_UNREADABLE"]);
  assertEquals(plan.json.data.dag, await readDag(dir.path, ws.sid, "007-modal"));
});
