/**
 * The literal-agent walk: an orchestrator that follows the peaks-code skill and the envelopes'
 * first nextAction, and sub-agents that follow their briefs, take four requests to
 * `txt finalized` on the demo's sample project, one of them implemented in slices, each in its own
 * worktree. A reordered nextAction makes the walk fail.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { EXPECTED_FAILURES, scenario } from "./catalog.ts";
import { formatSummary, summarize, type WalkReport, walkScenario, walkSession } from "./walker.ts";
import { type Envelope, WalkFailure } from "./walk.ts";

/** What the orchestrator may read for one feature request, end to end, and the skill text. */
const FEATURE_BUDGET = { bytes: 20 * 1024, calls: 45, skillBytes: 20 * 1024 };

/**
 * A walk test; one named on EXPECTED_FAILURES must still fail (its product fix is pending) and
 * fails once it passes, so the entry is taken off and the test switched on.
 */
function walkTest(name: string, title: string, fn: () => Promise<void>) {
  const pending = EXPECTED_FAILURES[name];
  Deno.test(pending ? `${title} (expected failure: ${pending})` : title, async () => {
    if (!pending) return await fn();
    await assertRejects(fn, Error, undefined, `${name} passes: take it off EXPECTED_FAILURES`);
  });
}

let featureReport: WalkReport | undefined;
const feature = async () => featureReport ??= await walkScenario(scenario("feature"));

Deno.test("a literal agent takes a feature request to txt finalized", async () => {
  const report = await feature();
  console.log(formatSummary(report));
  assertEquals(report.milestones.at(-1), "txt:finalized");
  assert(report.milestones.includes("ui:handed-off"), "the UI lock is part of the path");
  // No call is refused: no slices is an answer (data.slices: false), not an error.
  assertEquals(report.calls.filter((c) => c.code !== 0).map((c) => c.command), []);
  // Every sub-agent read the files its brief named (a missing one fails the walk).
  assert(report.briefReads > 0);
  // The end: request close asked, and the user's answer (leave it uncommitted) closed it.
  const closes = report.calls.filter((c) =>
    c.actor === "orchestrator" && / request close /.test(c.command)
  );
  assertEquals(closes.map((c) => c.command.includes("--decision uncommitted")), [false, true]);
});

walkTest(
  "feature-budget",
  "the feature walk stays within its output, call and skill budget",
  async () => {
    const report = await feature();
    const s = summarize(report);
    assert(report.skillBytes <= FEATURE_BUDGET.skillBytes, `${report.skillBytes} skill bytes`);
    assert(s.orchestratorBytes <= FEATURE_BUDGET.bytes, `${s.orchestratorBytes} bytes`);
    assert(s.orchestratorCalls <= FEATURE_BUDGET.calls, `${s.orchestratorCalls} calls`);
  },
);

walkTest(
  "session",
  "three requests in one project and session: a feature, a bugfix with a skipped UI resumed by a new conversation, a sliced feature with a host-isolated level, a conflict and a repair round",
  async () => {
    const report = await walkSession({
      inspect: async (root, walk) => {
        assertStringIncludes(
          await Deno.readTextFile(join(root, "server", "members.ts")),
          "members.slice(offset, offset + limit)",
        );
        assertStringIncludes(
          await Deno.readTextFile(join(root, "src", "lib", "searchClient.ts")),
          "if (!q)",
        );
        assertEquals(await walk.git("git status --short"), "");
        const worktrees = (await walk.git("git worktree list --porcelain")).split("\n")
          .filter((l) => l.startsWith("worktree "));
        assertEquals(worktrees.length, 1, worktrees.join(", "));
      },
    });
    console.log(formatSummary(report));
    assertEquals(report.requests.map((r) => r.name), [
      "feature",
      "bugfix-ui-skipped",
      "sliced-conflict",
    ]);
    assertEquals(report.milestones.filter((m) => m === "txt:finalized").length, 3);
    // Each request ended with the user's commit and its close.
    const closed = report.calls.filter((c) =>
      / request close .*--decision committed/.test(c.command)
    );
    assertEquals(closed.length, 3);
    assert(
      report.skillFiles.some((f) => f.includes("conversation 2")),
      "the resume read the skill again",
    );
    assertEquals(report.hostLevels, 1);
    assert(report.milestones.includes("rd:slice-conflict"));
    assert(report.milestones.includes("qa:verdict-issued:return-to-rd"));
  },
);

walkTest(
  "login",
  "a UI sub-agent that meets a login page ends blocked: login-required and the user is asked",
  async () => {
    const report = await walkScenario(scenario("login"));
    console.log(formatSummary(report));
    const at = report.milestones.indexOf("user:logged-in");
    assert(at > 0, "the orchestrator asked the user to log in");
    assertEquals(report.milestones[at + 1], "ui:dispatch");
    // The UI dispatched again joined the swarm: converge scored it delivered, so its design locks.
    assert(report.milestones.includes("ui:handed-off"), report.milestones.join(", "));
    assertEquals(report.milestones.at(-1), "txt:finalized");
  },
);

Deno.test("a literal agent takes a backend bugfix through one repair round to txt finalized", async () => {
  const report = await walkScenario(scenario("bugfix"));
  console.log(formatSummary(report));
  assertEquals(report.milestones.at(-1), "txt:finalized");
  assertEquals(report.milestones.filter((m) => m === "rd:dispatch").length, 2);
  assert(report.milestones.includes("qa:verdict-issued:return-to-rd"));
  assert(!report.milestones.some((m) => m.startsWith("ui:")), "a backend fix has no UI step");
});

walkTest(
  "sliced",
  "a literal agent takes a sliced feature through its worktrees, merged in DAG order, to txt finalized",
  async () => {
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
  },
);

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
