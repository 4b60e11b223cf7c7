/**
 * The literal-agent walk: an orchestrator that follows the peaks-code skill and the envelopes'
 * first nextAction, and sub-agents that follow their briefs, take four requests to
 * `txt finalized` on the demo's sample project, one of them implemented in slices, each in its own
 * worktree. A reordered nextAction makes the walk fail.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
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
  // No call is refused: no slices is an answer (data.slices: false), not an error.
  assertEquals(report.calls.filter((c) => c.code !== 0).map((c) => c.command), []);
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

Deno.test("a literal agent takes a sliced feature through its worktrees, merged in DAG order, to txt finalized", async () => {
  const sliced = scenario("sliced");
  const report = await walkScenario(sliced, {
    inspect: async (root, walk) => {
      // Every slice's change is in the main tree, uncommitted; no worktree or slice branch is left.
      for (const node of sliced.slices!.nodes) {
        for (const file of node.owns) {
          assert(await Deno.stat(join(root, file)).then(() => true, () => false), file);
        }
      }
      assertStringIncludes(
        await Deno.readTextFile(join(root, "src", "App.tsx")),
        "// route: /members/:id -> ProfilePage",
      );
      const worktrees = (await walk.git("git worktree list --porcelain")).split("\n")
        .filter((l) => l.startsWith("worktree "));
      assertEquals(worktrees.length, 1, worktrees.join(", "));
      assertEquals(await walk.git("git branch --list peaks/*"), "");
      // Merged as working-tree changes: nothing was committed.
      assertEquals(await walk.git("git log --format=%s"), "team-directory 0.3.0\n");
    },
  });
  console.log(formatSummary(report));
  assertEquals(report.milestones.at(-1), "txt:finalized");
  // Two levels of slices, then the one RD sub-agent that reviews the merged change.
  const rd = report.milestones.slice(report.milestones.indexOf("rd:spec-locked"));
  assertEquals(rd.slice(0, 5), [
    "rd:spec-locked",
    "rd:slices",
    "rd:slices",
    "rd:dispatch",
    "rd:implemented",
  ]);
  assertEquals(report.calls.filter((c) => c.code !== 0), []);
  // Each slice was reviewed in its own worktree before its finalize merged it.
  const reviews = report.calls.filter((c) => /^git -C \S+ diff$/.test(c.command));
  assertEquals(reviews.length, sliced.slices!.nodes.length);
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

Deno.test("a nextAction with shell syntax peaks never writes makes the walk fail", async () => {
  const docs = scenario("docs");
  let done = false;
  // The same words a lenient split would give, but double-quoted: a shell would expand a `$` in it.
  const quoted = (_command: string, envelope: Envelope) => {
    const next = envelope.nextActions?.[0];
    if (done || !next?.startsWith("peaks request transition ")) return;
    done = true;
    envelope.nextActions![0] = next.replace(` ${docs.rid} `, ` "${docs.rid}" `);
  };
  const error = await assertRejects(() => walkScenario(docs, { mutate: quoted }), WalkFailure);
  assert(/a nextAction a shell would not run as written/.test(error.message), error.message);
});
