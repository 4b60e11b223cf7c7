/**
 * The zod-free DAG check and batch reader (lib/dag/rules.ts) against
 * their schemas (dag_schema.ts): the check says yes only where the schema
 * takes the graph unchanged, the reader reads exactly what the schema reads,
 * and the graphs peaks and the skills write pass the check (so the fast path
 * is the one taken).
 */
import { z } from "../../lib/infra/zod.ts";
import { assert, assertEquals } from "@std/assert";
import { batchDagOf, isDag } from "../../lib/dag/rules.ts";
import { sliceDagSchemas } from "../../lib/state/slice_dag.ts";
import { mutate, ODD_VALUES } from "../support/mutate.ts";
import { rng, seedFromEnv } from "../support/prng.ts";

const { BatchDagSchema, DagSchema } = sliceDagSchemas(z);

/** Graphs as they are written: a swarm, a slice DAG, every optional field, labels. */
const GRAPHS: unknown[] = [
  {
    version: 1,
    rid: "001-login",
    batchId: "swarm-001-login-1a2b3c",
    nodes: [
      { id: "ui", role: "ui", prompt: "Design it.", label: "UI design direction" },
      { id: "rd-planning", role: "rd-planning", prompt: "Plan it.", foundation: true },
      { id: "qa-test-cases", role: "qa-test-cases", prompt: "Cases." },
    ],
    edges: [{ from: "rd-planning", to: "qa-test-cases" }],
  },
  {
    nodes: [
      {
        id: "api",
        role: "rd",
        prompt: "Write src/api.",
        isolation: "worktree",
        owns: ["src/api/"],
      },
      { id: "page", role: "rd", prompt: "Page.", isolation: "worktree", owns: ["src/page.tsx"] },
      { id: "glue", role: "rd", promptFile: "prompts/glue.md", complexity: "simple" },
    ],
    edges: [{ from: "api", to: "glue" }, { from: "page", to: "glue" }],
  },
  {
    nodes: [{
      id: "n1",
      role: "qa-test-cases",
      promptFile: "prompts/n1.md",
      label: "QA",
      complexity: "complex",
      requestId: "001-login",
      artifacts: [".peaks/_runtime/s/qa/test-cases/001-login.md"],
      foundation: false,
    }],
    edges: [],
  },
];

/** Values near the rules: ids that are not ids, roles with spaces, long strings, enum neighbours. */
const DAG_ODD: unknown[] = [
  ...ODD_VALUES,
  "a b",
  "../x",
  ".hidden",
  "x".repeat(129),
  "r".repeat(257),
  "p".repeat(4097),
  "worktree",
  "huge",
  "complex",
  "ok-id_1.2",
  "tab\there",
  undefined,
];

Deno.test("the graphs peaks and the skills write pass the zod-free check", () => {
  for (const graph of GRAPHS) {
    assert(isDag(graph), JSON.stringify(graph));
    assert(DagSchema.safeParse(graph).success);
  }
});

Deno.test("the DAG check never says yes where the schema says no or changes the graph (mutation runs)", () => {
  const seed = seedFromEnv("PEAKS_SEED", Date.now() % 1_000_000);
  const random = rng(seed);
  let vouched = 0;
  let doubted = 0;
  for (const graph of GRAPHS) {
    for (let i = 0; i < 1500; i++) {
      let sample = graph;
      for (let m = random.int(1, 3); m > 0; m--) sample = mutate(sample, random, DAG_ODD);
      const parsed = DagSchema.safeParse(sample);
      if (!isDag(sample)) {
        doubted++;
        continue;
      }
      vouched++;
      assert(parsed.success, `seed ${seed}: the check vouched for ${JSON.stringify(sample)}`);
      assertEquals(parsed.data, sample, `seed ${seed}: the schema changed a vouched graph`);
    }
  }
  assert(vouched > 300 && doubted > 300, `seed ${seed}: ${vouched} vouched, ${doubted} doubted`);
});

Deno.test("the batch's DAG section is read exactly as its schema reads it (mutation runs)", () => {
  const seed = seedFromEnv("PEAKS_SEED", Date.now() % 1_000_000);
  const random = rng(seed);
  const section = {
    hash: "a".repeat(64),
    source: ".peaks/_runtime/s/rd/slices-001.json",
    nodes: 3,
    levels: 2,
    dispatched: [
      { node: "api", record: "dispatch-001-rd-x.json", n: 1, at: "2026-12-01T00:00:00.000Z" },
      { node: "page", record: "dispatch-001-rd-y.json", n: 2, at: "2026-12-01T00:00:01.000Z" },
    ],
  };
  assertEquals(batchDagOf({}), null);
  assertEquals(batchDagOf({ dag: null }), null);
  assertEquals(batchDagOf({ dag: section }), section);
  let read = 0;
  for (let i = 0; i < 3000; i++) {
    let sample: unknown = section;
    for (let m = random.int(1, 3); m > 0; m--) sample = mutate(sample, random, DAG_ODD);
    const parsed = BatchDagSchema.safeParse(sample);
    const ours = batchDagOf({ dag: sample });
    if (sample === null || sample === undefined) assertEquals(ours, null);
    else if (parsed.success) {
      read++;
      assertEquals(ours, parsed.data, `seed ${seed}: ${JSON.stringify(sample)}`);
    } else assertEquals(ours, undefined, `seed ${seed}: read ${JSON.stringify(sample)}`);
  }
  assert(read > 300, `seed ${seed}: only ${read} readable samples`);
});
