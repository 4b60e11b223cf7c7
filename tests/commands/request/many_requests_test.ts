/**
 * Several requests one after another in one project and session: each gate
 * checks its own request's files, never those an earlier request left.
 */
import { assertEquals, assertMatch, assertNotEquals } from "@std/assert";
import { tempDir } from "../../support/temp.ts";
import {
  rdFinished,
  readyRequest,
  TECH_DOC,
  transition,
  workspace,
} from "../../support/request_fixture.ts";

const refused = (r: { code: number; json: { code: string } }) => [r.code, r.json.code];

Deno.test("request B's gates refuse while only request A's work exists", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  // Request A, a feature, has all its RD and UI work.
  for (const role of ["ui", "rd"]) await readyRequest(ws, role, "001-a");
  await ws.write("ui/design-draft-001-a.md", "# Draft\n\nCards on a grid.\n");
  await ws.write("rd/tech-doc-001-a.md", TECH_DOC);
  await ws.write("rd/code-review-001-a.md", "# Review\n\n## Findings\n\nNone.\n");
  for (const state of ["direction-locked", "handed-off"]) {
    assertEquals((await transition(ws, "ui", "001-a", state)).code, 0, state);
  }
  await rdFinished(ws, "001-a", ["src/a.ts"]);
  for (const state of ["spec-locked", "implemented", "qa-handoff"]) {
    assertEquals((await transition(ws, "rd", "001-a", state)).code, 0, state);
  }

  // Request B, a second feature in the same session, has none of its own.
  for (const role of ["ui", "rd"]) await readyRequest(ws, role, "002-b");
  const ui = await transition(ws, "ui", "002-b", "direction-locked");
  assertEquals(refused(ui), [3, "PREREQUISITES_MISSING"], ui.stdout);
  assertEquals(ui.json.data.missing[0].path, `.peaks/_runtime/${ws.sid}/ui/design-draft-002-b.md`);
  const spec = await transition(ws, "rd", "002-b", "spec-locked");
  assertEquals(refused(spec), [3, "PREREQUISITES_MISSING"], spec.stdout);
  assertEquals(spec.json.data.missing[0].path, `.peaks/_runtime/${ws.sid}/rd/tech-doc-002-b.md`);

  // The probe: RD never worked on B, and qa-handoff is still refused.
  await ws.write("rd/tech-doc-002-b.md", TECH_DOC.replace("One endpoint", "A second endpoint"));
  for (const state of ["spec-locked", "implemented"]) {
    assertEquals((await transition(ws, "rd", "002-b", state)).code, 0, state);
  }
  const handoff = await transition(ws, "rd", "002-b", "qa-handoff");
  assertEquals(refused(handoff), [3, "RD_WORK_MISSING"], handoff.stdout);
  assertEquals(handoff.json.data.reason, "no-rd-record");
  assertEquals(
    handoff.json.data.missing[0].path,
    `.peaks/_runtime/${ws.sid}/rd/code-review-002-b.md`,
  );
  // The next step is RD's sub-agent for B, never a way around it.
  assertEquals(handoff.json.nextActions.length, 1);
  assertMatch(handoff.json.nextActions[0], /sub-agent dispatch rd --request-id 002-b/);
  // A code review written by hand is not RD's work either.
  await ws.write("rd/code-review-002-b.md", "# Review\n\n## Findings\n\nNone.\n");
  const reviewOnly = await transition(ws, "rd", "002-b", "qa-handoff");
  assertEquals(refused(reviewOnly), [3, "RD_WORK_MISSING"], reviewOnly.stdout);
  // A's files are untouched by B's steps.
  const a = await Deno.readTextFile(`${ws.root}/.peaks/_runtime/${ws.sid}/rd/tech-doc-001-a.md`);
  assertEquals(a, TECH_DOC);
});

Deno.test("planning request B leaves request A's swarm plan and member DAG unchanged", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  const session = `${ws.root}/.peaks/_runtime/${ws.sid}`;
  const plans: Record<string, string> = {};
  for (const rid of ["001-a", "002-b"]) {
    await readyRequest(ws, "prd", rid);
    for (const state of ["confirmed-by-user"]) {
      assertEquals((await transition(ws, "prd", rid, state)).code, 0, state);
    }
    const plan = await ws.peaks("swarm", "plan", "--rid", rid, "--mode", "full-auto");
    assertEquals(plan.code, 0, plan.stdout);
    plans[rid] = await Deno.readTextFile(`${session}/sc/swarm-plan-${rid}.json`);
  }
  assertEquals(await Deno.readTextFile(`${session}/sc/swarm-plan-001-a.json`), plans["001-a"]);
  const dagA = JSON.parse(await Deno.readTextFile(`${session}/sc/slice-dag-001-a.json`));
  const dagB = JSON.parse(await Deno.readTextFile(`${session}/sc/slice-dag-002-b.json`));
  assertEquals([dagA.rid, dagB.rid], ["001-a", "002-b"]);
  assertNotEquals(dagA.batchId, dagB.batchId);
  // B's briefs name only B's files.
  const briefs = dagB.nodes.map((n: { prompt: string }) => n.prompt).join("\n");
  assertEquals(briefs.includes("001-a"), false, briefs);
});

Deno.test("rd qa-handoff needs RD's record finalized done and a product change it names", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "rd", "001-a");
  await ws.write("rd/tech-doc-001-a.md", TECH_DOC);
  await ws.write("rd/code-review-001-a.md", "# Review\n\n## Findings\n\nNone.\n");
  for (const state of ["spec-locked", "implemented"]) {
    assertEquals((await transition(ws, "rd", "001-a", state)).code, 0, state);
  }
  const reason = async () => {
    const r = await transition(ws, "rd", "001-a", "qa-handoff");
    return r.code === 0 ? "ok" : `${r.json.code} ${r.json.data.reason}`;
  };
  // Still running: finalize it first; no command invites going round it.
  const open = await rdFinished(ws, "001-a", [], { status: "running", outcome: null });
  assertEquals(await reason(), "RD_WORK_MISSING rd-open");
  await Deno.remove(open);
  // Finished, but its return names only peaks files: no product change.
  await rdFinished(ws, "001-a", []);
  assertEquals(await reason(), "RD_WORK_MISSING no-product-change");
  // A product file it names that is not there is no change either (outside a checkout).
  await rdFinished(ws, "001-a", [], {
    result: { role: "rd", rid: "001-a", status: "ok", artefacts: ["src/gone.ts"], warnings: [] },
  });
  assertEquals(await reason(), "RD_WORK_MISSING no-product-change");
  await rdFinished(ws, "001-a", ["src/a.ts"]);
  assertEquals(await reason(), "ok");
});
