import { assert, assertEquals, assertMatch } from "@std/assert";
import { pool, runPeaks, type RunResult } from "../support/cli.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { initWorkspace, readJson } from "../support/subagent.ts";
import { runActions, runNextAction } from "../support/next_actions.ts";
import { join } from "../../lib/core/std.ts";

const CLAUDE = { CLAUDECODE: "1" };
const marker = (id: string) => `MARKER-${id}-93c1`;

function dag(ids: string[], edges: [string, string][], extra: (id: string) => object = () => ({})) {
  return JSON.stringify({
    nodes: ids.map((id) => ({ id, role: `role-${id}`, prompt: `Do ${marker(id)}.`, ...extra(id) })),
    edges: edges.map(([from, to]) => ({ from, to })),
  });
}

/** Three levels: {a, b, c(foundation)} -> {d, e} -> {f, g}. */
const SEVEN = dag(
  ["a", "b", "c", "d", "e", "f", "g"],
  [["a", "d"], ["b", "d"], ["c", "e"], ["d", "f"], ["e", "g"], ["a", "g"]],
  (id) => (id === "c" ? { foundation: true } : {}),
);

function fromDag(cwd: string, ...extra: string[]): Promise<RunResult> {
  return runPeaks(["sub-agent", "dispatch", "--from-dag", "dag.json", ...extra, "--json"], {
    cwd,
    env: CLAUDE,
  });
}

/** Stdout without the tool calls' prompts: where no prompt may ever appear. */
function outsidePrompts(stdout: string): string {
  const envelope = JSON.parse(stdout);
  for (const call of envelope.data?.toolCalls ?? []) delete call.args.prompt;
  return JSON.stringify(envelope);
}

async function dispatchFiles(root: string, sid: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(root, ".peaks", "_sub_agents", sid))) {
      if (entry.name.startsWith("dispatch-")) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

async function finalizeAll(cwd: string, paths: string[], outcome = "done"): Promise<void> {
  await Promise.all(paths.map(async (record) => {
    const done = await runPeaks(
      ["sub-agent", "finalize", "--record", record, "--outcome", outcome, "--json"],
      { cwd },
    );
    assertEquals(done.code, 0, done.stdout);
  }));
}

function assertWave(result: RunResult, level: number, nodes: string[], remaining: number) {
  assertEquals(result.code, 0, result.stdout + result.stderr);
  const data = result.json.data;
  assertEquals(data.level, level);
  assertEquals(data.levelsTotal, 3);
  assertEquals(data.remainingLevels, remaining);
  assertEquals(data.dispatchCount, nodes.length);
  assertEquals(data.nodes.map((n: { nodeId: string }) => n.nodeId), nodes);
  assertEquals(data.toolCalls.length, nodes.length);
  assertEquals(data.dispatchRecordPaths.length, nodes.length);
  nodes.forEach((id, i) => {
    assertEquals(data.toolCalls[i].name, "Agent");
    assertEquals(data.toolCalls[i].args.description, `role-${id} for rid=001-dag`);
    assert(data.toolCalls[i].args.prompt.includes(marker(id)), `prompt of ${id}`);
  });
  for (const id of "abcdefg") {
    assert(!outsidePrompts(result.stdout).includes(marker(id)), `prompt ${id} leaked`);
  }
  assertEquals(data.expectedCompletionSeconds, 60);
  assertMatch(
    data.orchestratorVisibleHint,
    new RegExp(
      `^⏳ Spawning ${nodes.length} sub-agents via Agent tool: .* for rid=001-dag, batch-id=b7, level ${level}/3 \\(ETA ~60s\\)$`,
    ),
  );
}

Deno.test("7 nodes, 3 levels: one level per call, LEVEL_NOT_READY until it is finalized", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), SEVEN);

  const first = await fromDag(dir.path, "--batch-id", "b7", "--request-id", "001-dag");
  assertWave(first, 1, ["c", "a", "b"], 2);
  const level1 = first.json.data.dispatchRecordPaths as string[];
  // Each node is a record in the batch carrying its node id, numbered 1..3 under one lock.
  for (const [i, path] of level1.entries()) {
    const record = await readJson(join(dir.path, path));
    assertEquals(record.graphNodeId, ["c", "a", "b"][i]);
    assertEquals(record.batchId, "b7");
    assertEquals(record.dispatchedInBatch, i + 1);
    assertEquals(record.status, "queued");
  }
  const [status] = await runActions(first.json.nextActions, { cwd: dir.path });
  assertEquals(status.code, 0, status.stdout);
  assertMatch(status.json.data.line, /swarm 3\/3 running/);

  const early = await runNextAction(first.json.data.nextCall, { cwd: dir.path, env: CLAUDE });
  assertEquals(early.code, 3);
  assertEquals(early.json.code, "LEVEL_NOT_READY");
  for (const path of level1) assert(early.json.message.includes(path), path);
  assertEquals(early.json.data.waiting.length, 3);
  assertEquals(early.json.data.remainingLevels, 2);

  await finalizeAll(dir.path, level1.slice(0, 2));
  const still = await runNextAction(first.json.data.nextCall, { cwd: dir.path, env: CLAUDE });
  assertEquals(still.json.code, "LEVEL_NOT_READY");
  assertEquals(still.json.data.waiting.map((w: { nodeId: string }) => w.nodeId), ["b"]);
  assertEquals(still.json.data.waiting[0].recordPath, level1[2]);

  await finalizeAll(dir.path, level1.slice(2));
  const second = await runNextAction(first.json.data.nextCall, { cwd: dir.path, env: CLAUDE });
  assertWave(second, 2, ["d", "e"], 1);
  assertEquals(second.json.data.batchId, "b7");
  assertEquals(
    second.json.data.nodes.map((n: { dispatchedInBatch: number }) => n.dispatchedInBatch),
    [
      4,
      5,
    ],
  );

  await finalizeAll(dir.path, second.json.data.dispatchRecordPaths);
  const third = await runNextAction(second.json.data.nextCall, { cwd: dir.path, env: CLAUDE });
  assertWave(third, 3, ["f", "g"], 0);
  assertEquals(third.json.data.nextCall, null);

  // Everything out, still running: nothing to send, and it says who runs.
  const drained = await fromDag(dir.path, "--batch-id", "b7", "--request-id", "001-dag");
  assertEquals(drained.code, 0);
  assertEquals(drained.json.data.dispatchCount, 0);
  assertEquals(drained.json.data.remainingLevels, 0);
  assertEquals(drained.json.data.waiting.length, 2);

  await finalizeAll(dir.path, third.json.data.dispatchRecordPaths);
  const done = await fromDag(dir.path, "--batch-id", "b7", "--request-id", "001-dag");
  assertEquals(done.code, 0);
  assertEquals(done.json.data.complete, true);
  assertEquals(done.json.data.toolCalls, []);
  const batch = JSON.parse(
    await Deno.readTextFile(join(dir.path, ".peaks", "_sub_agents", sid, "batch-b7.json")),
  );
  assertEquals(batch.count, 7);
  assertEquals(batch.dag.dispatched.map((d: { node: string }) => d.node), [
    "c",
    "a",
    "b",
    "d",
    "e",
    "f",
    "g",
  ]);
});

Deno.test("a cycle is refused with exit 2, naming its nodes; nothing is written", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(
    join(dir.path, "dag.json"),
    dag(["a", "b", "c", "d"], [["a", "b"], ["b", "c"], ["c", "d"], ["d", "b"]]),
  );
  const result = await fromDag(dir.path);
  assertEquals(result.code, 2);
  assertEquals(result.json.code, "DAG_INVALID");
  assertMatch(result.json.message, /cycle: (b → c → d → b|c → d → b → c|d → b → c → d)/);
  assertEquals(await dispatchFiles(dir.path, sid), []);
});

Deno.test("10 nodes with --max-parallel 4 go out as waves of 4, 4 and 2", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const ids = Array.from({ length: 10 }, (_, i) => `n${i}`);
  await writeText(join(dir.path, "dag.json"), dag(ids, []));
  const sizes: number[] = [];
  let call = ["sub-agent", "dispatch", "--from-dag", "dag.json", "--max-parallel", "4"];
  for (let wave = 1; wave <= 3; wave++) {
    const result = await runPeaks([...call, "--json"], { cwd: dir.path, env: CLAUDE });
    assertEquals(result.code, 0, result.stdout);
    const data = result.json.data;
    assertEquals([data.level, data.wave, data.wavesInLevel], [1, wave, 3]);
    assertEquals(data.remainingLevels, wave < 3 ? 1 : 0);
    sizes.push(data.dispatchCount);
    assertEquals(
      result.json.warnings.filter((w: { code: string }) => w.code === "BATCH_OVER_LIMIT"),
      [],
    );
    await finalizeAll(dir.path, data.dispatchRecordPaths);
    if (data.nextCall) call = data.nextCall.split(" ").slice(1);
  }
  assertEquals(sizes, [4, 4, 2]);
});

Deno.test("pointer briefs and prompt files: no prompt text anywhere on stdout", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(join(dir.path, "prompts", "b.md"), `From a file ${marker("b")}`);
  await writeText(
    join(dir.path, "dag.json"),
    JSON.stringify({
      nodes: [
        { id: "a", role: "ui", prompt: `Inline ${marker("a")}`, requestId: "001-x" },
        {
          id: "b",
          role: "qa-test-cases",
          promptFile: "prompts/b.md",
          requestId: "001-x",
          artifacts: [`.peaks/_runtime/${sid}/qa/test-cases/001-x.md`],
        },
      ],
      edges: [],
    }),
  );
  const result = await fromDag(dir.path, "--brief", "pointer");
  assertEquals(result.code, 0, result.stdout);
  for (const id of ["a", "b"]) assert(!result.stdout.includes(marker(id)));
  const data = result.json.data;
  assertEquals(data.artifactsPublicPaths, [`.peaks/_runtime/${sid}/qa/test-cases/001-x.md`]);
  assert(!("projectRoot" in data) && !("instructions" in data));
  for (const [i, call] of data.toolCalls.entries()) {
    assertMatch(call.args.prompt, /^Run `peaks sub-agent brief --record dispatch-001-x-/);
    const brief = await runPeaks(
      ["sub-agent", "brief", "--record", data.dispatchRecordPaths[i], "--json"],
      { cwd: dir.path },
    );
    assert(brief.stdout.includes(marker(["a", "b"][i])));
  }
});

Deno.test("refusals: another DAG under the batch, a single-dispatch batch, flags that belong to one node", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), dag(["a", "b"], []));
  assertEquals((await fromDag(dir.path, "--batch-id", "one")).code, 0);
  await writeText(join(dir.path, "dag.json"), dag(["a", "b", "c"], []));
  const mismatch = await fromDag(dir.path, "--batch-id", "one");
  assertEquals([mismatch.code, mismatch.json.code], [3, "DAG_MISMATCH"]);

  const single = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--prompt", "x", "--batch-id", "solo", "--json"],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(single.code, 0, single.stdout);
  const notDag = await fromDag(dir.path, "--batch-id", "solo");
  assertEquals([notDag.code, notDag.json.code], [3, "BATCH_NOT_A_DAG"]);

  for (
    const [args, code] of [
      [["sub-agent", "dispatch", "rd", "--from-dag", "dag.json"], "CONFLICTING_FLAGS"],
      [["sub-agent", "dispatch", "--from-dag", "dag.json", "--prompt", "x"], "CONFLICTING_FLAGS"],
      [["sub-agent", "dispatch", "--prompt", "x"], "MISSING_ARGUMENT"],
      [
        ["sub-agent", "dispatch", "rd", "--prompt", "x", "--max-parallel", "3"],
        "CONFLICTING_FLAGS",
      ],
      [
        ["sub-agent", "dispatch", "--from-dag", "dag.json", "--max-parallel", "0"],
        "INVALID_FLAG_VALUE",
      ],
      [["sub-agent", "dispatch", "--from-dag", "../outside.json"], "PATH_OUTSIDE_PROJECT"],
    ] as const
  ) {
    const result = await runPeaks([...args, "--json"], { cwd: dir.path, env: CLAUDE });
    assertEquals([result.code, result.json.code], [2, code], args.join(" "));
  }
});

Deno.test("a failed node blocks what depends on it: DAG_BLOCKED names both", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), dag(["a", "b", "c"], [["a", "c"], ["b", "c"]]));
  const first = await fromDag(dir.path, "--batch-id", "bf");
  const [a, b] = first.json.data.dispatchRecordPaths;
  await finalizeAll(dir.path, [a], "failed");
  await finalizeAll(dir.path, [b]);
  const blocked = await fromDag(dir.path, "--batch-id", "bf");
  assertEquals([blocked.code, blocked.json.code], [3, "DAG_BLOCKED"]);
  assertEquals(blocked.json.data.failed[0].nodeId, "a");
  assertEquals(blocked.json.data.blocked, ["c"]);
  const [status] = await runActions(blocked.json.nextActions, { cwd: dir.path });
  assertEquals(status.code, 0, status.stdout);
});

Deno.test("FANOUT_REQUIRED: a single dispatch for a request whose planned DAG has parallel leaves", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const planned = join(dir.path, ".peaks", "_runtime", sid, "sc", "slice-dag.json");
  await writeText(
    planned,
    JSON.stringify({
      rid: "001-fan",
      batchId: "fan",
      nodes: [
        { id: "rd-planning", role: "rd-planning", prompt: "plan" },
        { id: "qa-test-cases", role: "qa-test-cases", prompt: "test" },
      ],
      edges: [],
    }),
  );
  const single = await runPeaks(
    ["sub-agent", "dispatch", "rd-planning", "--request-id", "001-fan", "--prompt", "x", "--json"],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(single.code, 0, single.stdout);
  const warning = single.json.warnings.find((w: { code: string }) => w.code === "FANOUT_REQUIRED");
  assert(warning, JSON.stringify(single.json.warnings));
  assertEquals(warning.readyNodes, ["rd-planning", "qa-test-cases"]);
  const fanned = await runNextAction(warning.command, { cwd: dir.path, env: CLAUDE });
  assertEquals(fanned.code, 0, fanned.stdout);
  assertEquals(fanned.json.data.dispatchCount, 2);
  // Once the DAG is out, a single dispatch for the request is not warned any more.
  const later = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--request-id", "001-fan", "--prompt", "x", "--json"],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(
    later.json.warnings.filter((w: { code: string }) => w.code === "FANOUT_REQUIRED"),
    [],
  );
  // Another request is never warned.
  const other = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--request-id", "002-other", "--prompt", "x", "--json"],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(
    other.json.warnings.filter((w: { code: string }) => w.code === "FANOUT_REQUIRED"),
    [],
  );
});

Deno.test("16 concurrent calls for one batch send the level exactly once", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), dag(["a", "b", "c", "d"], [["a", "d"]]));
  const results = await pool(16, 16, () => fromDag(dir.path, "--batch-id", "race"));
  const sent = results.filter((r) => r.code === 0);
  assertEquals(sent.length, 1, results.map((r) => r.json?.code ?? r.stderr).join(","));
  for (const r of results.filter((r) => r.code !== 0)) {
    assertEquals(r.code, 3, r.stdout + r.stderr);
    assert(["LEVEL_NOT_READY", "WAVE_ALREADY_DISPATCHED"].includes(r.json.code), r.json.code);
  }
  assertEquals((await dispatchFiles(dir.path, sid)).length, 3);
});

Deno.test("a prompt over budget refuses the whole wave; the offered re-run continues the DAG", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), dag(["a", "b"], []));
  const refused = await fromDag(dir.path, "--batch-id", "tight", "--context-window", "1000");
  assertEquals(refused.code, 3);
  assert(["PROMPT_TOO_LARGE", "PROMPT_EMERGENCY"].includes(refused.json.code), refused.stdout);
  assert(["a", "b"].includes(refused.json.data.node));
  assertEquals(await dispatchFiles(dir.path, sid), []);
  const forced = refused.json.nextActions.find((a: string) => a.includes("--force"));
  assertEquals(
    forced,
    `peaks sub-agent dispatch --from-dag dag.json --batch-id tight --context-window 1000 --force --project ${dir.path}`,
  );
  const sent = await runNextAction(forced, { cwd: dir.path, env: CLAUDE });
  assertEquals(sent.code, 0, sent.stdout);
  assertEquals(sent.json.data.dispatchCount, 2);
  assert(sent.json.data.nodes.every((n: { forcedAt: string | null }) => n.forcedAt !== null));
});
