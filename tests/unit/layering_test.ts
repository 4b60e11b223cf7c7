/**
 * The layers as the code has them: entry -> kernel (lib/cli) -> features ->
 * core (lib/core). Read from the source, so a new import that runs back up,
 * reaches into another folder's private file or closes a cycle fails here.
 */
import { assert, assertEquals } from "@std/assert";
import { REPO } from "../support/cli.ts";
import {
  eagerCycles,
  floors,
  type ImportGraph,
  layeringProblems,
  layerOf,
  readImportGraph,
  staticClosure,
} from "../support/import_graph.ts";

const graph = readImportGraph(REPO);

Deno.test("lib keeps its layers: nothing runs back up, no private reach-ins, no cycles", () => {
  assertEquals(layeringProblems(graph).map((p) => p.message), []);
});

Deno.test("no cycle even through the lazy imports (the table hands completions itself)", () => {
  const everyEdge = { ...graph, edges: graph.edges.map((e) => ({ ...e, dynamic: false })) };
  assertEquals(eagerCycles(everyEdge), []);
});

Deno.test("lib has four floors: entry, kernel, features, core", () => {
  const { count, chain } = floors(graph);
  assert(count <= 4, `the longest chain of folders is ${chain.join(" -> ")}`);
  assert(graph.edges.some((e) => e.from === "lib/cli/table.ts" && e.dynamic), "the table is read");
});

Deno.test("a feature folder holds its commands (named after their verbs) and _-prefixed helpers", () => {
  const commands = new Set(
    graph.edges.filter((e) => e.from === "lib/cli/table.ts" && e.dynamic).map((e) => e.to),
  );
  const loose = graph.files.filter((f) => {
    const name = f.split("/").pop()!;
    return layerOf(f) === "feature" && !name.startsWith("_") && name !== "mod.ts" &&
      !commands.has(f);
  });
  assertEquals(loose, []);
});

Deno.test("the zod-free splits (`*_light.ts`) load no zod and no npm package but std", () => {
  const light = graph.files.filter((f) => f.endsWith("_light.ts"));
  assert(light.length >= 4, light.join(", "));
  for (const file of light) {
    const closure = staticClosure(graph, file);
    const heavy = graph.bare.filter((b) =>
      closure.has(b.from) && !b.dynamic && !b.typeOnly && !b.specifier.startsWith("@std/")
    );
    assertEquals(heavy.map((b) => `${b.from} imports ${b.specifier}`), [], file);
    assert(!closure.has("lib/infra/zod.ts"), `${file} reaches lib/infra/zod.ts`);
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

Deno.test("the layering check fails on a reach into another folder's private file", () => {
  const problems = layeringProblems(synthetic([
    ["lib/commands/doctor/doctor.ts", "lib/skills/install_root.ts"],
    ["lib/commands/sub-agent/list.ts", "lib/scan/_legacy.ts"],
    ["lib/commands/sub-agent/dispatch.ts", "lib/detached/dispatch.ts"],
    ["lib/scan/scan.ts", "lib/scan/_legacy.ts"],
  ]));
  assertEquals(problems.map((p) => p.rule), ["cross-feature", "private", "private"]);
});

Deno.test("the layering check lets the kernel reach features only through the table, lazily", () => {
  const problems = layeringProblems(synthetic([
    ["lib/cli/table.ts", "lib/commands/session/info.ts", "dynamic"],
    ["lib/cli/table.ts", "lib/commands/session/list.ts"],
    ["lib/cli/main.ts", "lib/commands/session/info.ts", "dynamic"],
  ]));
  assertEquals(problems.map((p) => p.rule), ["kernel-eager", "kernel-eager"]);
});

Deno.test("the layering check fails on an eager cycle, not on a lazy one", () => {
  const cycle = synthetic([
    ["lib/core/presence/a.ts", "lib/core/presence/b.ts"],
    ["lib/core/presence/b.ts", "lib/core/presence/a.ts", "type"],
    ["lib/cli/table.ts", "lib/cli/completions/command.ts", "dynamic"],
    ["lib/cli/completions/command.ts", "lib/cli/table.ts"],
  ]);
  assertEquals(eagerCycles(cycle), [["lib/core/presence/a.ts", "lib/core/presence/b.ts"]]);
  assertEquals(layeringProblems(cycle).map((p) => p.rule), ["cycle"]);
});

Deno.test("floors count folders along the longest chain", () => {
  const five = synthetic([
    ["peaks.ts", "lib/cli/main.ts"],
    ["lib/cli/table.ts", "lib/commands/doctor/doctor.ts", "dynamic"],
    ["lib/commands/doctor/doctor.ts", "lib/skills/mod.ts"],
    ["lib/skills/mod.ts", "lib/infra/errors.ts"],
  ]);
  assertEquals(floors(five), {
    count: 5,
    chain: ["entry", "cli", "doctor", "skills", "core"],
  });
});
