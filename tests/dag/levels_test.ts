import { z } from "../../lib/infra/zod.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { analyzeDag, DAG_MAX_NODES, type DagAnalysis, parseDag } from "../../lib/dag/dag.ts";
import { sliceDagSchemas } from "../../lib/state/slice_dag.ts";
import {
  type NodeProgress,
  type NodeState,
  pendingProgress,
  stateOf,
} from "../../lib/dag/progress.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import { decideNext } from "../../lib/fanout/_schedule.ts";

const { DagSchema } = sliceDagSchemas(z);

const node = (id: string, foundation = false) => ({ id, role: "rd", prompt: id, foundation });

function analyze(nodes: unknown[], edges: [string, string][]): DagAnalysis {
  const { analysis, problems } = analyzeDag(
    DagSchema.parse({ nodes, edges: edges.map(([from, to]) => ({ from, to })) }),
  );
  assertEquals(problems, []);
  return analysis!;
}

function states(entries: Record<string, NodeState>): Map<string, NodeProgress> {
  return new Map(
    Object.entries(entries).map(([id, state]) => [id, { ...pendingProgress(id), state }]),
  );
}

/** The seven-node, three-level DAG of the acceptance test. */
const SEVEN = analyze(
  ["a", "b", "c", "d", "e", "f", "g"].map((id) => node(id, id === "c")),
  [["a", "d"], ["b", "d"], ["c", "e"], ["d", "f"], ["e", "g"], ["a", "g"]],
);

Deno.test("levels: longest path from the sources, foundation nodes first within a level", () => {
  assertEquals(SEVEN.levels, [["c", "a", "b"], ["d", "e"], ["f", "g"]]);
  assertEquals(SEVEN.levelOf.get("g"), 3);
  // a -> c directly and through b: c waits for the longer path.
  const diamond = analyze([node("a"), node("b"), node("c")], [["a", "b"], ["b", "c"], [
    "a",
    "c",
  ]]);
  assertEquals(diamond.levels, [["a"], ["b"], ["c"]]);
});

Deno.test("the scheduler sends level 1, waits, then the next level, then reports completion", () => {
  let decision = decideNext(SEVEN, new Map(), 6);
  assertEquals(decision, {
    kind: "dispatch",
    level: 1,
    wave: 1,
    wavesInLevel: 1,
    nodes: ["c", "a", "b"],
    remainingLevels: 2,
  });
  decision = decideNext(SEVEN, states({ a: "done", b: "open", c: "done" }), 6);
  assertEquals(decision.kind, "wait");
  if (decision.kind === "wait") {
    assertEquals(decision.level, 2);
    assertEquals(decision.waiting.map((w) => w.node), ["b"]);
  }
  decision = decideNext(SEVEN, states({ a: "done", b: "done", c: "done" }), 6);
  assertEquals(decision.kind === "dispatch" && decision.nodes, ["d", "e"]);
  assertEquals(decision.kind === "dispatch" && decision.remainingLevels, 1);
  const all = Object.fromEntries(SEVEN.dag.nodes.map((n) => [n.id, "done" as NodeState]));
  assertEquals(decideNext(SEVEN, states(all), 6).kind, "complete");
  // Everything out, two still running: nothing left to send.
  const running = decideNext(SEVEN, states({ ...all, f: "open", g: "stuck" }), 6);
  assertEquals(running.kind === "wait" && running.level, null);
});

Deno.test("a wide level goes out in waves of --max-parallel: 4, 4, 2", () => {
  const ids = Array.from({ length: 10 }, (_, i) => `n${i}`);
  const wide = analyze(ids.map((id) => node(id)), []);
  const done: Record<string, NodeState> = {};
  const sizes: number[] = [];
  for (let wave = 1; wave <= 3; wave++) {
    const decision = decideNext(wide, states(done), 4);
    if (decision.kind !== "dispatch") throw new Error(`expected a wave, got ${decision.kind}`);
    assertEquals(decision.wave, wave);
    assertEquals(decision.wavesInLevel, 3);
    assertEquals(decision.remainingLevels, wave < 3 ? 1 : 0);
    sizes.push(decision.nodes.length);
    for (const id of decision.nodes) done[id] = "done";
  }
  assertEquals(sizes, [4, 4, 2]);
  assertEquals(decideNext(wide, states(done), 4).kind, "complete");
});

Deno.test("a failed node blocks the DAG and names what waits on it", () => {
  const decision = decideNext(SEVEN, states({ a: "failed", b: "done", c: "done" }), 6);
  assertEquals(decision.kind, "blocked");
  if (decision.kind === "blocked") {
    assertEquals(decision.failed.map((f) => f.node), ["a"]);
    assertEquals(decision.blocked, ["d", "f", "g"]);
  }
});

Deno.test("record statuses map to scheduler states", () => {
  assertEquals(stateOf("done"), "done");
  for (const s of ["failed", "cancelled", "timeout"] as const) assertEquals(stateOf(s), "failed");
  for (const s of ["stale", "never-started", "unreadable"] as const) {
    assertEquals(stateOf(s), "stuck");
  }
  for (const s of ["queued", "running", "finalizing"] as const) assertEquals(stateOf(s), "open");
});

Deno.test("10 000 nodes: the file is refused by the cap; the analysis itself stays linear", async () => {
  const count = 10_000;
  const ids = Array.from({ length: count }, (_, i) => `n${i}`);
  const chainEdges = ids.slice(1).map((id, i) => ({ from: ids[i], to: id }));
  const text = JSON.stringify({ nodes: ids.map((id) => node(id)), edges: chainEdges });
  const error = await assertRejects(() => parseDag(text, "big.json"), PeaksError) as PeaksError;
  assertEquals(error.code, "DAG_TOO_LARGE");
  assertEquals(error.exit, 3);
  assertMatch(error.message, new RegExp(`10000 nodes; peaks takes at most ${DAG_MAX_NODES}`));

  // Past the cap on purpose: a 10 000-deep chain (no recursion to overflow) ...
  const chain = analyze(ids.map((id) => node(id)), chainEdges.map((e) => [e.from, e.to]));
  assertEquals(chain.levels.length, count);
  assertEquals(chain.levelOf.get("n9999"), count);
  // ... a 10 000-node ring names all its nodes ...
  const ring = analyzeDag(DagSchema.parse({
    nodes: ids.map((id) => node(id)),
    edges: [...chainEdges, { from: "n9999", to: "n0" }],
  }));
  assertEquals(ring.problems[0].kind, "cycle");
  assertEquals(ring.problems[0].nodes.length, count);
  // ... and a wide layered graph (100 levels of 100, each node fed by two of the level above).
  const layered = ids.map((id, i) => ({ id, i }));
  const edges: [string, string][] = layered.filter(({ i }) => i >= 100).flatMap((
    { id, i },
  ) => [[`n${i - 100}`, id], [`n${i - 100 - (i % 100 === 0 ? 0 : 1)}`, id]]);
  const wide = analyze(ids.map((id) => node(id)), edges);
  assertEquals(wide.levels.length, 100);
  assert(wide.levels.every((level) => level.length === 100));
});
