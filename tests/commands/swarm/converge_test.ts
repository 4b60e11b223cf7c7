import { z } from "../../../lib/infra/zod.ts";
import { assert, assertEquals, assertMatch } from "@std/assert";
import { runActions } from "../../support/next_actions.ts";
import { readyRequest } from "../../support/request_fixture.ts";
import {
  type Dispatched,
  finishMember,
  planAndDispatch,
  writeArtefacts,
  writePrd,
} from "../../support/swarm.ts";
import { swarmWorkspace } from "../../support/swarm.ts";
import { tempDir } from "../../support/temp.ts";
import { runPeaks } from "../../support/cli.ts";
import { recordPathOf } from "../../support/subagent.ts";
import type { Workspace } from "../../support/request_fixture.ts";
import { swarmPlanSchemas } from "../../../lib/state/swarm_plan.ts";
import { fits } from "../../../lib/infra/shape/shape.ts";
import { SWARM_PLAN_SHAPE } from "../../../lib/state/shapes.ts";

const { SwarmPlanSchema } = swarmPlanSchemas(z);

const ALL = ["ui", "rd-planning", "qa-test-cases"];

interface Member {
  /** How the member ends: ok (artefacts + done), or one way of failing. */
  ends:
    | "ok"
    | "blocked"
    | "record-failed"
    | "artefact-missing"
    | "placeholder"
    | "heading"
    | "stale"
    | "no-share";
}

/** A member's file with a template placeholder left in it. */
const UNFINISHED: Record<string, [string, string]> = {
  ui: ["ui/design-draft-001-login.md", "# Design\n\n<the chosen direction>\n"],
  "rd-planning": ["rd/tech-doc-001-login.md", "# Tech doc\n\n- <endpoint>\n"],
  "qa-test-cases": ["qa/test-cases/001-login.md", "## Test cases\n\n- <case>\n"],
};

/** A member's file whose required heading is spelled differently. */
const WRONG_HEADING: Record<string, [string, string]> = {
  "rd-planning": [
    "rd/bug-analysis-001-login.md",
    "# Bug\n\n## Root cause\n\nA race.\n\n## Fix plan\n\nA lock.\n",
  ],
  "qa-test-cases": ["qa/test-cases/001-login.md", "# Tests\n\n## Test Cases\n\n- TC1\n"],
};

/** A planned, dispatched swarm for a feature with UI; each member ends as asked. */
async function swarm(
  root: string,
  ends: Record<string, Member["ends"]>,
  type = "feature",
): Promise<{ ws: Workspace; run: Dispatched }> {
  const ws = await swarmWorkspace(root);
  await writePrd(ws, "001-login", { type, state: "handed-off", body: "A login page with a form." });
  const run = await planAndDispatch(ws, "001-login");
  for (const role of Object.keys(run.records)) {
    const end = ends[role] ?? "ok";
    const record = run.records[role];
    const base = { record, role, rid: "001-login", batchId: run.batchId };
    if (end !== "artefact-missing") await writeArtefacts(ws, "001-login", role, type);
    switch (end) {
      case "ok":
      case "artefact-missing":
        await finishMember(ws, base);
        break;
      case "no-share":
        await finishMember(ws, { ...base, share: false });
        break;
      case "blocked":
        await finishMember(ws, { ...base, result: "blocked" });
        break;
      case "record-failed":
        await finishMember(ws, { ...base, result: "blocked", outcome: "failed" });
        break;
      case "placeholder":
        await ws.write(UNFINISHED[role][0], UNFINISHED[role][1]);
        await finishMember(ws, base);
        break;
      case "heading":
        await ws.write(WRONG_HEADING[role][0], WRONG_HEADING[role][1]);
        await finishMember(ws, base);
        break;
      case "stale": {
        // Dispatched ten minutes ago, one beat nine minutes ago, silent since: stale.
        const path = `${root}/${record}`;
        const json = JSON.parse(await Deno.readTextFile(path));
        const at = (ms: number) => new Date(Date.now() - ms).toISOString();
        json.createdAt = at(600_000);
        json.status = "running";
        json.lastBeatAt = at(540_000);
        json.heartbeats = [{
          at: at(540_000),
          status: "running",
          progress: 20,
          note: null,
          stage: null,
        }];
        await Deno.writeTextFile(path, JSON.stringify(json));
        break;
      }
    }
  }
  return { ws, run };
}

async function converge(ws: Workspace, ...extra: string[]) {
  return await ws.peaks("swarm", "converge", "--rid", "001-login", ...extra);
}

async function storedPlan(ws: Workspace) {
  const text = await Deno.readTextFile(
    `${ws.root}/.peaks/_runtime/${ws.sid}/sc/swarm-plan-001-login.json`,
  );
  const value = JSON.parse(text);
  // The plan peaks wrote passes its shape, so reading it back never loads zod.
  assert(fits(SWARM_PLAN_SHAPE, value), text);
  return SwarmPlanSchema.parse(value);
}

/** The RD request the rd-planning member would have created and filled. */
async function rdRequest(ws: Workspace, type = "feature") {
  const exists = await Deno.stat(ws.requestPath("rd", "001-login")).then(() => true, () => false);
  if (!exists) await readyRequest(ws, "rd", "001-login", type);
}

Deno.test("all members delivered: ok, plan and presence updated, the RD step runs", async () => {
  await using dir = await tempDir();
  const { ws } = await swarm(dir.path, {});
  await rdRequest(ws);
  const result = await converge(ws);
  assertEquals(result.code, 0, result.stdout);
  const data = result.json.data;
  assertEquals(data.outcome, "ok");
  assert(!("handoffNotes" in data) && !("failed" in data), "no empty fields");
  assertEquals(data.members.map((m: { final: string }) => m.final), ["ok", "ok", "ok"]);
  assertEquals(result.json.warnings, []);
  const plan = await storedPlan(ws);
  assertEquals(plan.status, "converged");
  assertEquals(plan.convergence?.outcome, "ok");
  assertEquals(plan.convergence?.members.map((m) => [m.role, m.final, m.recordStatus]), [
    ["ui", "ok", "done"],
    ["rd-planning", "ok", "done"],
    ["qa-test-cases", "ok", "done"],
  ]);
  const presence = (await ws.peaks("skill", "presence")).json.data;
  assertEquals([presence.gate, presence.role], ["swarm-converged", "ui"]);
  // UI delivered: its direction is locked and handed off before RD's spec, one step at a time.
  assertEquals(result.json.nextActions, [
    `peaks request transition 001-login --role ui --state direction-locked --project ${dir.path} --json`,
  ]);
  const [locked] = await runActions(result.json.nextActions, { cwd: dir.path });
  assertEquals(locked.code, 0, locked.stdout);
  assertMatch(locked.json.nextActions[0], /--role ui --state handed-off /);
  const [handed] = await runActions(locked.json.nextActions, { cwd: dir.path });
  assertEquals(handed.code, 0, handed.stdout);
  assertMatch(handed.json.nextActions[0], /--role rd --state spec-locked /);
  const [spec] = await runActions(handed.json.nextActions, { cwd: dir.path });
  assertEquals(spec.json.data.to, "spec-locked");
});

Deno.test("UI returned blocked: ui-design-missing, RD goes on", async () => {
  await using dir = await tempDir();
  const { ws } = await swarm(dir.path, { ui: "blocked" });
  await rdRequest(ws);
  const result = await converge(ws);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.outcome, "ui-design-missing");
  assertEquals(result.json.data.handoffNotes, ["ui-design-missing"]);
  const ui = result.json.data.members[0];
  assertEquals([ui.final, ui.resultStatus], ["failed", "blocked"]);
  assertMatch(ui.reasons[0], /returned blocked: design source missing/);
  const [locked] = await runActions(result.json.nextActions, { cwd: dir.path });
  assertEquals(locked.code, 0, locked.stdout);
});

Deno.test("a blocked UI dispatched again by role joins the swarm as its node, and converge follows it", async () => {
  await using dir = await tempDir();
  const { ws, run } = await swarm(dir.path, { ui: "blocked" });
  await rdRequest(ws);
  // "Dispatch that role again": no prompt, only the role and the request.
  const again = await ws.peaks("sub-agent", "dispatch", "ui", "--request-id", "001-login");
  assertEquals(again.code, 0, again.stdout + again.stderr);
  const record = recordPathOf(ws.root, again.json.data.record);
  const stored = JSON.parse(await Deno.readTextFile(`${ws.root}/${record}`));
  assertEquals([stored.batchId, stored.graphNodeId], [run.batchId, "ui"]);
  // The node's task and its declared files, as the first dispatch had them.
  const first = JSON.parse(await Deno.readTextFile(`${ws.root}/${run.records.ui}`));
  assertEquals(stored.declaredArtifacts, first.declaredArtifacts);
  assertMatch(
    stored.prompt,
    /You are the UI design direction member of the swarm for request 001-login/,
  );
  // The UI delivers this time: converge scores the newest record, with no degradation.
  await finishMember(ws, { record, role: "ui", rid: "001-login", batchId: run.batchId });
  const result = await converge(ws);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.outcome, "ok");
  assertEquals(result.json.data.members[0].final, "ok");
});

Deno.test("a swarm role dispatched by role without a planned swarm still needs a prompt", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writePrd(ws, "001-login", { type: "feature", state: "handed-off", body: "A login page." });
  const result = await ws.peaks("sub-agent", "dispatch", "ui", "--request-id", "001-login");
  assertEquals(result.code, 2, result.stdout);
  assertEquals(result.json.code, "MISSING_PROMPT");
  assertMatch(
    result.json.message,
    /ui, rd-planning and qa-test-cases once swarm plan planned them/,
  );
});

Deno.test("RD planning's record failed: tech-doc-missing; RD plans inline", async () => {
  await using dir = await tempDir();
  const { ws } = await swarm(dir.path, { "rd-planning": "record-failed" });
  await Deno.remove(`${dir.path}/.peaks/_runtime/${ws.sid}/rd/tech-doc-001-login.md`);
  await Deno.remove(ws.requestPath("rd", "001-login"));
  const result = await converge(ws);
  assertEquals(result.json.data.outcome, "tech-doc-missing");
  const rd = result.json.data.members[1];
  assertEquals(rd.recordStatus, "failed");
  assert(rd.reasons.some((r: string) => /record failed/.test(r)));
  assert(rd.reasons.some((r: string) => /tech-doc-001-login\.md is missing/.test(r)));
  // UI delivered: its two transitions first, then init creates the RD request.
  let next = result.json.nextActions;
  for (const state of ["direction-locked", "handed-off"]) {
    assertMatch(next[0], new RegExp(`--role ui --state ${state} `));
    next = (await runActions(next, { cwd: dir.path }))[0].json.nextActions;
  }
  assertMatch(next[0], /^peaks request init --role rd --id 001-login --apply /);
  const [init] = await runActions(next, { cwd: dir.path });
  assertEquals(init.code, 0, init.stdout);
  const [lint] = await runActions(init.json.nextActions, { cwd: dir.path });
  assertEquals([lint.code, lint.json.data.passed], [3, false]);
});

Deno.test('bugfix: the bug analysis lacks "## Fix approach": tech-doc-missing (Gate B)', async () => {
  await using dir = await tempDir();
  const { ws } = await swarm(dir.path, { "rd-planning": "heading" }, "bugfix");
  const result = await converge(ws);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.outcome, "tech-doc-missing");
  const rd = result.json.data.members[1];
  assertEquals([rd.recordStatus, rd.resultStatus, rd.final], ["done", "ok", "failed"]);
  assertEquals(rd.artefacts[0].path, `.peaks/_runtime/${ws.sid}/rd/bug-analysis-001-login.md`);
  assertMatch(rd.reasons.join(" "), /must contain the line "## Fix approach"/);
});

Deno.test('QA\'s test cases say "## Test Cases": qa-test-cases-missing, the near miss named', async () => {
  await using dir = await tempDir();
  const { ws } = await swarm(dir.path, { "qa-test-cases": "heading" });
  await rdRequest(ws);
  const result = await converge(ws);
  assertEquals(result.json.data.outcome, "qa-test-cases-missing");
  assertMatch(result.json.data.members[2].reasons.join(" "), /"## Test cases".*"## Test Cases"/);
  assertMatch(
    result.json.data.instructions[0],
    /write them \(line "## Test cases"\) before QA runs/,
  );
  const [locked] = await runActions(result.json.nextActions, { cwd: dir.path });
  assertEquals(locked.code, 0, locked.stdout);
});

Deno.test("one member short of its Gate-B file: qa-test-cases-missing", async () => {
  await using dir = await tempDir();
  const { ws } = await swarm(dir.path, { "qa-test-cases": "artefact-missing" });
  await rdRequest(ws);
  const result = await converge(ws);
  assertEquals(result.json.data.outcome, "qa-test-cases-missing");
  const qa = result.json.data.members[2];
  assertEquals([qa.recordStatus, qa.resultStatus, qa.final], ["done", "ok", "failed"]);
  assertEquals(qa.artefacts[0].ok, false);
  const [locked] = await runActions(result.json.nextActions, { cwd: dir.path });
  assertEquals(locked.code, 0, locked.stdout);
});

Deno.test("two failed (stale UI, placeholders left by QA): swarm-degraded-to-sequential", async () => {
  await using dir = await tempDir();
  const { ws } = await swarm(dir.path, { ui: "stale", "qa-test-cases": "placeholder" });
  await rdRequest(ws);
  const result = await converge(ws);
  assertEquals(result.code, 0, result.stdout);
  const data = result.json.data;
  assertEquals(data.outcome, "swarm-degraded-to-sequential");
  assertEquals(data.handoffNotes, [
    "swarm-degraded-to-sequential",
    "ui-design-missing",
    "qa-test-cases-missing",
  ]);
  assertEquals(data.members[0].recordStatus, "stale");
  assertMatch(data.members[2].reasons.join(" "), /placeholder/);
  assertMatch(data.instructions[0], /go on in sequence/);
  const [lock] = await runActions(result.json.nextActions, { cwd: dir.path });
  assertEquals(lock.code, 0, lock.stdout);
  assertEquals(lock.json.data.to, "spec-locked");
});

Deno.test("every member failed: swarm-aborted is a gate outcome (exit 3), the user picks an option", async () => {
  await using dir = await tempDir();
  const { ws, run } = await swarm(dir.path, {
    ui: "record-failed",
    "rd-planning": "blocked",
    "qa-test-cases": "artefact-missing",
  });
  const result = await converge(ws);
  assertEquals([result.code, result.json.ok, result.json.code], [3, false, "SWARM_ABORTED"]);
  assertEquals(result.json.data.outcome, "swarm-aborted");
  assertEquals(result.json.data.failed, ALL);
  assertMatch(result.json.data.instructions.join(" "), /ask how to go on/);
  // One option per nextAction, in the same order.
  assertEquals(result.json.data.userOptions.length, result.json.nextActions.length);
  assertEquals((await storedPlan(ws)).convergence?.outcome, "swarm-aborted");
  // Retrying is the user's call; the offered commands run (here: a fresh plan, a fresh batch).
  const [retry] = await runActions([result.json.nextActions[0]], { cwd: dir.path });
  assertEquals(retry.code, 0, retry.stdout);
  assertMatch(retry.json.data.batchId, /^swarm-001-login-/);
  assert(retry.json.data.batchId !== run.batchId);
});

Deno.test("open members: refused with the finalize commands; --finalize-open closes them as failed", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writePrd(ws, "001-login", { body: "A login page." });
  const run = await planAndDispatch(ws, "001-login");
  await writeArtefacts(ws, "001-login", "ui");
  await finishMember(ws, {
    record: run.records.ui,
    role: "ui",
    rid: "001-login",
    batchId: run.batchId,
  });
  const refused = await converge(ws);
  assertEquals([refused.code, refused.json.code], [3, "SWARM_MEMBERS_OPEN"]);
  assertEquals(refused.json.data.running.map((r: { role: string }) => r.role), [
    "rd-planning",
    "qa-test-cases",
  ]);
  // Marking a working member failed is not a next step: its command is data, not a nextAction.
  assertEquals(refused.json.nextActions, []);
  const finalize = refused.json.data.running.map((r: { stopCommand: string }) => r.stopCommand);
  assertEquals(finalize.length, 2);
  assert(finalize[0].includes(run.records["rd-planning"]));

  // The first finalize command, run as given, closes rd-planning; qa stays open.
  await runActions([finalize[0]], { cwd: dir.path });
  const forced = await converge(ws, "--finalize-open");
  assertEquals(forced.code, 0, forced.stdout);
  assertEquals(forced.json.data.outcome, "swarm-degraded-to-sequential");
  const qa = forced.json.data.members[2];
  assertEquals([qa.recordStatus, qa.finalizedAtConverge], ["failed", true]);
  const record = JSON.parse(await Deno.readTextFile(`${dir.path}/${run.records["qa-test-cases"]}`));
  assertEquals([record.status, record.disposed], ["failed", true]);
  assertMatch(record.error, /--finalize-open/);
});

Deno.test("a done member that never posted <role>.completed: SHARE_COMPLETED_MISSING", async () => {
  await using dir = await tempDir();
  const { ws } = await swarm(dir.path, { "rd-planning": "no-share" });
  const result = await converge(ws);
  assertEquals(result.json.data.outcome, "ok");
  const warnings = result.json.warnings.filter((w: { code: string }) =>
    w.code === "SHARE_COMPLETED_MISSING"
  );
  assertEquals(warnings.map((w: { role: string }) => w.role), ["rd-planning"]);
  const [read] = await runActions([warnings[0].command], { cwd: dir.path });
  assertEquals(read.code, 0, read.stdout);
});

Deno.test("sequential: RD failed, so QA was never dispatched; both count as failed", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writePrd(ws, "001-login", { body: "Speed up exports." });
  const run = await planAndDispatch(ws, "001-login", [
    "--mode",
    "full-auto",
    "--choice",
    "sequential",
  ]);
  assertEquals(Object.keys(run.records), ["rd-planning"]);
  // Before RD is done, QA is still to come: converge waits and offers the dispatch.
  const early = await converge(ws);
  assertEquals(early.json.code, "SWARM_MEMBERS_OPEN");
  await finishMember(ws, {
    record: run.records["rd-planning"],
    role: "rd-planning",
    rid: "001-login",
    batchId: run.batchId,
    outcome: "failed",
    result: "blocked",
  });
  const result = await converge(ws);
  assertEquals([result.code, result.json.code], [3, "SWARM_ABORTED"], result.stdout);
  assertEquals(result.json.data.outcome, "swarm-aborted");
  assertMatch(result.json.data.members[1].reasons[0], /never dispatched: it waits for rd-planning/);
});

Deno.test("no plan, or planned but never dispatched: refused with the command that comes first", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writePrd(ws, "001-login", { body: "Speed up exports." });
  const none = await converge(ws);
  assertEquals([none.code, none.json.code], [3, "SWARM_PLAN_NOT_FOUND"]);
  const [planned] = await runActions(none.json.nextActions, { cwd: dir.path });
  assertEquals(planned.json.data.needsChoice, true);
  await ws.peaks("swarm", "plan", "--rid", "001-login", "--mode", "full-auto");
  const idle = await converge(ws);
  assertEquals([idle.code, idle.json.code], [3, "SWARM_NOT_DISPATCHED"]);
  const [dispatched] = await runActions(idle.json.nextActions, {
    cwd: dir.path,
    env: { CLAUDECODE: "1" },
  });
  assertEquals(dispatched.json.data.toolCalls.length, 2);
});

Deno.test("a person reads next: once after swarm plan and after swarm converge", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writePrd(ws, "001-login", { type: "feature", state: "handed-off", body: "A login page." });
  const args = ["swarm", "plan", "--rid", "001-login", "--mode", "full-auto"];
  const plan = await runPeaks(args, { cwd: dir.path, env: ws.env });
  assertEquals(plan.code, 0, plan.stderr);
  assertEquals((plan.stdout.match(/^next:/gm) ?? []).length, 1, plan.stdout);
  await using other = await tempDir();
  const { ws: done } = await swarm(other.path, {});
  await rdRequest(done);
  const human = await runPeaks(["swarm", "converge", "--rid", "001-login"], {
    cwd: other.path,
    env: done.env,
  });
  assertEquals(human.code, 0, human.stderr);
  assertEquals((human.stdout.match(/^next:/gm) ?? []).length, 1, human.stdout);
});

Deno.test("UI skipped with a reason: scored skipped, no Gate B, no degradation, no ARTIFACT_MISSING", async () => {
  await using dir = await tempDir();
  const ws = await swarmWorkspace(dir.path);
  await writePrd(ws, "001-login", { state: "handed-off", body: "A login page with a form." });
  const run = await planAndDispatch(ws, "001-login");
  for (const role of Object.keys(run.records)) {
    const base = { record: run.records[role], role, rid: "001-login", batchId: run.batchId };
    if (role === "ui") {
      // The skip finalizes without a warning about the files declared for UI.
      const finalized = await ws.peaks(
        "sub-agent",
        "finalize",
        "--record",
        base.record,
        "--outcome",
        "done",
        "--result-json",
        JSON.stringify({
          role,
          rid: "001-login",
          status: "skipped",
          artefacts: [],
          warnings: [],
          reason: "non-frontend-request",
        }),
      );
      assertEquals(finalized.code, 0, finalized.stdout);
      const codes = finalized.json.warnings.map((w: { code: string }) => w.code);
      assertEquals(codes.includes("ARTIFACT_MISSING"), false, finalized.stdout);
      continue;
    }
    await writeArtefacts(ws, "001-login", role);
    await finishMember(ws, base);
  }
  const result = await converge(ws);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.outcome, "ok");
  assertEquals(result.json.data.members[0], {
    role: "ui",
    final: "skipped",
    reason: "non-frontend-request",
  });
  // A skip posts nothing on the channel, and nothing warns that it did not.
  assertEquals(result.json.warnings.map((w: { code: string }) => w.code), []);
  // No UI lock: the RD step is next.
  assertMatch(result.json.nextActions[0], /--role rd --state spec-locked /);
});

Deno.test("converge checks every member's request and the tech doc's sections, as the briefs list them", async () => {
  await using dir = await tempDir();
  const { ws } = await swarm(dir.path, {});
  // QA's request still has its template placeholders; the tech doc is three lines.
  await ws.write("qa/requests/001-login.md", "---\nrid: 001-login\n---\n# QA\n\n<what to test>\n");
  await ws.write("rd/tech-doc-001-login.md", "# Tech doc\n\nOne endpoint, one table.\n");
  const result = await converge(ws);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.outcome, "swarm-degraded-to-sequential");
  const [, rd, qa] = result.json.data.members;
  assert(
    rd.reasons.some((r: string) =>
      /tech-doc-001-login\.md must contain the lines "## Scope"/.test(r)
    ),
    rd.reasons,
  );
  assert(
    qa.reasons.some((r: string) => /qa\/requests\/001-login\.md still has 1 placeholder/.test(r)),
    qa.reasons,
  );
});
