import { z } from "../../lib/infra/zod.ts";
import { assert, assertEquals, assertMatch, assertNotEquals, assertRejects } from "@std/assert";
import { dagHash, parseDag } from "../../lib/dag/dag.ts";
import { sliceDagSchemas } from "../../lib/state/slice_dag.ts";
import { PeaksError } from "../../lib/infra/errors.ts";

const { DagSchema } = sliceDagSchemas(z);

const node = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  role: "rd",
  prompt: `work on ${id}`,
  ...extra,
});

async function refusal(raw: unknown): Promise<PeaksError> {
  const text = typeof raw === "string" ? raw : JSON.stringify(raw);
  return await assertRejects(() => parseDag(text, "dag.json"), PeaksError) as PeaksError;
}

Deno.test("a valid DAG parses, with ids, roles and edges kept", async () => {
  const analysis = await parseDag(
    JSON.stringify({ nodes: [node("a"), node("b")], edges: [{ from: "a", to: "b" }] }),
    "dag.json",
  );
  assertEquals(analysis.levels, [["a"], ["b"]]);
  assertEquals(analysis.predecessors.get("b"), ["a"]);
  assertEquals(analysis.edgeCount, 1);
});

Deno.test("schema problems are DAG_INVALID (exit 2) naming the field", async () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ nodes: [], edges: [] }, /nodes: needs at least one node/],
    [{ edges: [] }, /nodes/],
    [{ nodes: [node("a")] }, /edges/],
    [{ nodes: [{ id: "a", role: "rd" }], edges: [] }, /exactly one of prompt and promptFile/],
    [
      { nodes: [{ ...node("a"), promptFile: "p.md" }], edges: [] },
      /exactly one of prompt and promptFile/,
    ],
    [{ nodes: [node("../x")], edges: [] }, /nodes\.0\.id: must be 1-128 characters/],
    [{ nodes: [node("a", { role: "has space" })], edges: [] }, /role: must not contain whitespace/],
    [{ nodes: [node("a", { promt: "typo" })], edges: [] }, /nodes\.0/],
    [{ nodes: [node("a", { complexity: "huge" })], edges: [] }, /complexity/],
    [{ nodes: [node("a")], edges: [], extra: true }, /extra|Unrecognized/i],
    ["{not json", /not valid JSON/],
    ["", /empty/],
  ];
  for (const [raw, pattern] of cases) {
    const error = await refusal(raw);
    assertEquals(error.code, "DAG_INVALID", JSON.stringify(raw));
    assertEquals(error.exit, 2);
    assertMatch(error.message, pattern, JSON.stringify(raw));
    assertMatch(error.message, /dag\.json/);
  }
});

Deno.test("duplicate ids, unknown endpoints and self-loops are named", async () => {
  const dup = await refusal({ nodes: [node("a"), node("a")], edges: [] });
  assertMatch(dup.message, /node id "a" is used twice/);
  const unknown = await refusal({ nodes: [node("a")], edges: [{ from: "a", to: "ghost" }] });
  assertMatch(unknown.message, /edge 0 \(a → ghost\) names unknown node "ghost"/);
  const self = await refusal({ nodes: [node("a")], edges: [{ from: "a", to: "a" }] });
  assertMatch(self.message, /"a" depend on itself/);
  assertEquals((self.data.problems as { kind: string }[])[0].kind, "self-loop");
});

Deno.test("a cycle is refused naming exactly its nodes, not the ones around it", async () => {
  const error = await refusal({
    nodes: ["x", "a", "b", "c", "y"].map((id) => node(id)),
    edges: [
      { from: "x", to: "a" },
      { from: "a", to: "b" },
      { from: "b", to: "c" },
      { from: "c", to: "a" },
      { from: "c", to: "y" },
    ],
  });
  const problem = (error.data.problems as { kind: string; nodes: string[] }[])[0];
  assertEquals(problem.kind, "cycle");
  assertEquals([...problem.nodes].sort(), ["a", "b", "c"]);
  assertMatch(error.message, /cycle: (a → b → c → a|b → c → a → b|c → a → b → c)/);
});

Deno.test("a foundation node may depend only on foundation nodes", async () => {
  const error = await refusal({
    nodes: [node("app"), node("base", { foundation: true })],
    edges: [{ from: "app", to: "base" }],
  });
  assertMatch(error.message, /foundation node "base" depends on "app"/);
  // Foundation on foundation, and ordinary nodes on foundation, are fine.
  const ok = await parseDag(
    JSON.stringify({
      nodes: [node("f1", { foundation: true }), node("f2", { foundation: true }), node("app")],
      edges: [{ from: "f1", to: "f2" }, { from: "f2", to: "app" }],
    }),
    "dag.json",
  );
  assertEquals(ok.levels, [["f1"], ["f2"], ["app"]]);
});

Deno.test("the hash ignores formatting, node order and labels of the file, not content", async () => {
  const base = {
    nodes: [node("a"), node("b")],
    edges: [{ from: "a", to: "b" }, { from: "a", to: "b" }],
  };
  const reordered = {
    batchId: "b1",
    rid: "001-x",
    nodes: [node("b"), node("a")],
    edges: [{ to: "b", from: "a" }],
  };
  const changed = { ...base, nodes: [node("a"), node("b", { prompt: "other" })] };
  const h = await dagHash(DagSchema.parse(base));
  assertMatch(h, /^[0-9a-f]{64}$/);
  assertEquals(await dagHash(DagSchema.parse(reordered)), h);
  assertNotEquals(await dagHash(DagSchema.parse(changed)), h);
});

Deno.test("promptFile, label, complexity, requestId and artifacts are accepted", async () => {
  const analysis = await parseDag(
    JSON.stringify({
      nodes: [{
        id: "n1",
        role: "qa-test-cases",
        promptFile: "prompts/n1.md",
        label: "QA",
        complexity: "complex",
        requestId: "001-login",
        artifacts: [".peaks/_runtime/s/qa/test-cases/001-login.md"],
      }],
      edges: [],
    }),
    "dag.json",
  );
  assert(analysis.byId.get("n1")?.promptFile);
});
