/**
 * The layers as the code has them: entry -> kernel (lib/cli) -> commands
 * (lib/commands/<group>) -> topics (lib/<noun>) -> state kinds (lib/state) ->
 * infrastructure (lib/infra). Read from the source, so a new import that runs
 * back up, reaches into another unit's private file or closes a cycle fails here.
 */
import { assert, assertEquals } from "@std/assert";
import { REPO } from "../support/cli.ts";
import {
  eagerCycles,
  type ImportGraph,
  layeringProblems,
  layerOf,
  readImportGraph,
  staticClosure,
  topicGraph,
} from "../support/import_graph.ts";

const graph = readImportGraph(REPO);

Deno.test("lib keeps its layers: nothing runs back up, no private reach-ins, no cycles", () => {
  assertEquals(layeringProblems(graph).map((p) => p.message), []);
});

Deno.test("no cycle even through the lazy imports (the table hands completions itself)", () => {
  const everyEdge = { ...graph, edges: graph.edges.map((e) => ({ ...e, dynamic: false })) };
  assertEquals(eagerCycles(everyEdge), []);
});

Deno.test("the kernel reaches commands through the table, and the topics form no cycle", () => {
  assert(graph.edges.some((e) => e.from === "lib/cli/table.ts" && e.dynamic), "the table is read");
  assertEquals(eagerCycles(topicGraph(graph)), []);
});

Deno.test("every command module is one the table loads; commands hold nothing else", () => {
  const commands = new Set(
    graph.edges.filter((e) => e.from === "lib/cli/table.ts" && e.dynamic).map((e) => e.to),
  );
  const loose = graph.files.filter((f) =>
    layerOf(f) === "command" && !f.split("/").pop()!.startsWith("_") && !commands.has(f)
  );
  assertEquals(loose, []);
  const missing = [...commands].filter((f) => layerOf(f) !== "command" && layerOf(f) !== "kernel");
  assertEquals(missing, []);
});

Deno.test("infrastructure and state kinds load no zod eagerly but through lib/infra/zod.ts", () => {
  for (const file of graph.files.filter((f) => layerOf(f) === "state")) {
    if (file === "lib/state/shapes.ts") continue;
    const closure = staticClosure(graph, file);
    assert(!closure.has("lib/infra/zod.ts"), `${file} loads zod: build its schema in a function`);
  }
});

// The checks above must be able to fail: each rule against a graph that breaks it.
const synthetic = (edges: [string, string, ("dynamic" | "type")?][]): ImportGraph => ({
  files: [...new Set(edges.flatMap(([a, b]) => [a, b]))],
  edges: edges.map(([from, to, kind]) => ({
    from,
    to,
    dynamic: kind === "dynamic",
    typeOnly: kind === "type",
  })),
});

Deno.test("the layering check fails on an upward import", () => {
  const rules = layeringProblems(synthetic([
    ["lib/record/record.ts", "lib/commands/sub-agent/heartbeat.ts"],
    ["lib/commands/sub-agent/heartbeat.ts", "lib/cli/envelope.ts", "type"],
  ])).map((p) => p.rule);
  assertEquals(rules, ["upward", "upward"]);
});

Deno.test("the layering check fails on a reach into another unit's private file", () => {
  const problems = layeringProblems(synthetic([
    ["lib/commands/doctor/doctor.ts", "lib/skills/install_root.ts"],
    ["lib/commands/sub-agent/list.ts", "lib/scan/_legacy.ts"],
    ["lib/fanout/fanout.ts", "lib/detached/_spawn.ts"],
    ["lib/scan/scan.ts", "lib/scan/_legacy.ts"],
    ["lib/scan/walk.ts", "lib/infra/fs/_inner.ts"],
  ]));
  assertEquals(problems.map((p) => p.rule), ["private", "private", "private"]);
});

Deno.test("the layering check fails when command groups import each other", () => {
  const problems = layeringProblems(synthetic([
    ["lib/commands/doctor/doctor.ts", "lib/commands/skills/list.ts"],
    ["lib/commands/skills/install.ts", "lib/commands/skills/_shared.ts"],
  ]));
  assertEquals(problems.map((p) => p.rule), ["cross-command"]);
});

Deno.test("the layering check fails when topics import each other in a circle", () => {
  const problems = layeringProblems(synthetic([
    ["lib/record/record.ts", "lib/workspace/paths.ts"],
    ["lib/workspace/project.ts", "lib/record/names.ts"],
    ["lib/batch/batch.ts", "lib/record/names.ts", "type"],
    ["lib/record/heartbeat.ts", "lib/batch/batch.ts"],
  ]));
  assertEquals(problems.map((p) => p.rule), ["topic-cycle"]);
});

Deno.test("the layering check fails when state or infrastructure imports a topic", () => {
  const problems = layeringProblems(synthetic([
    ["lib/state/record.ts", "lib/record/names.ts"],
    ["lib/infra/fs/guard.ts", "lib/workspace/paths.ts"],
    ["lib/infra/fs/guard.ts", "lib/state/record.ts"],
  ]));
  assertEquals(problems.map((p) => p.rule), ["upward", "upward", "upward"]);
});

Deno.test("the layering check lets the kernel reach commands only through the table, lazily", () => {
  const problems = layeringProblems(synthetic([
    ["lib/cli/table.ts", "lib/commands/session/info.ts", "dynamic"],
    ["lib/cli/table.ts", "lib/commands/session/list.ts"],
    ["lib/cli/main.ts", "lib/commands/session/info.ts", "dynamic"],
  ]));
  assertEquals(problems.map((p) => p.rule), ["kernel-eager", "kernel-eager"]);
});

Deno.test("the layering check fails on an eager cycle, not on a lazy one", () => {
  const cycle = synthetic([
    ["lib/presence/a.ts", "lib/presence/b.ts"],
    ["lib/presence/b.ts", "lib/presence/a.ts", "type"],
    ["lib/cli/table.ts", "lib/cli/completions/command.ts", "dynamic"],
    ["lib/cli/completions/command.ts", "lib/cli/table.ts"],
  ]);
  assertEquals(eagerCycles(cycle), [["lib/presence/a.ts", "lib/presence/b.ts"]]);
  assertEquals(layeringProblems(cycle).map((p) => p.rule), ["cycle"]);
});
