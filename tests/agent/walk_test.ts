/**
 * The literal-agent walk: an orchestrator that follows the peaks-code skill and the envelopes'
 * first nextAction, and sub-agents that follow their briefs, take three requests to
 * `txt finalized` on the demo's sample project. A reordered nextAction makes the walk fail.
 */
import { assert, assertEquals, assertRejects } from "@std/assert";
import { scenario } from "./scenarios.ts";
import { formatSummary, summarize, walkScenario } from "./walker.ts";
import { type Envelope, WalkFailure } from "./walk.ts";

/** What the orchestrator may read for one feature request, end to end. */
const FEATURE_BUDGET = { bytes: 35 * 1024, calls: 55 };

Deno.test("a literal agent takes a feature request to txt finalized within the byte budget", async () => {
  const report = await walkScenario(scenario("feature"));
  console.log(formatSummary(report));
  assertEquals(report.milestones.at(-1), "txt:finalized");
  assert(report.milestones.includes("ui:handed-off"), "the UI lock is part of the path");
  assertEquals(report.calls.filter((c) => c.code !== 0), []);
  const s = summarize(report);
  assert(s.orchestratorBytes <= FEATURE_BUDGET.bytes, `${s.orchestratorBytes} bytes`);
  assert(s.orchestratorCalls <= FEATURE_BUDGET.calls, `${s.orchestratorCalls} calls`);
});

Deno.test("a literal agent takes a backend bugfix through one repair round to txt finalized", async () => {
  const report = await walkScenario(scenario("bugfix"));
  console.log(formatSummary(report));
  assertEquals(report.milestones.at(-1), "txt:finalized");
  assertEquals(report.milestones.filter((m) => m === "rd:dispatch").length, 2);
  assert(report.milestones.includes("qa:verdict-issued:return-to-rd"));
  assert(!report.milestones.some((m) => m.startsWith("ui:")), "a backend fix has no UI step");
});

Deno.test("a literal agent takes a docs change, which skips the swarm, to txt finalized", async () => {
  const report = await walkScenario(scenario("docs"));
  console.log(formatSummary(report));
  assertEquals(report.milestones.at(-1), "txt:finalized");
  assert(!report.milestones.includes("swarm:dispatch"));
});

/** Replaces the first nextAction of the envelope answering `after` with a transition to `to`. */
function reorder(after: RegExp, rid: string, role: string, to: string) {
  let done = false;
  return (command: string, envelope: Envelope) => {
    if (done || !after.test(command) || !envelope.nextActions?.length) return;
    done = true;
    envelope.nextActions[0] = `peaks request transition ${rid} --role ${role} --state ${to} --json`;
  };
}

Deno.test("a nextAction that jumps ahead of the work makes the walk fail", async () => {
  const feature = scenario("feature");
  // RD is sent ahead of its sub-agent: implemented right after the spec lock.
  const skipRd = reorder(/--role rd --state spec-locked/, feature.rid, "rd", "implemented");
  const error = await assertRejects(() => walkScenario(feature, { mutate: skipRd }), WalkFailure);
  assert(/the workflow expects rd:dispatch/.test(error.message), error.message);
  // QA starts before RD handed off: qa running right after rd implemented.
  const skipHandoff = reorder(/--role rd --state implemented/, feature.rid, "qa", "running");
  const second = await assertRejects(
    () => walkScenario(feature, { mutate: skipHandoff }),
    WalkFailure,
  );
  assert(/the workflow expects rd:qa-handoff/.test(second.message), second.message);
});
