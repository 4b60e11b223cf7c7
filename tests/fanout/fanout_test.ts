import { assert, assertEquals, assertMatch } from "@std/assert";
import { pool, runPeaks, type RunResult } from "../support/cli.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { heartbeatArgs, initWorkspace, readJson, recordPathOf } from "../support/subagent.ts";
import { runActions, runNextAction } from "../support/next_actions.ts";
import { join } from "../../lib/infra/std.ts";

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

/** The record files of a dispatch envelope's `data.records` (short ids), project-relative. */
function recordPaths(cwd: string, result: RunResult): string[] {
  return (result.json.data.records as string[]).map((id) => recordPathOf(cwd, id));
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

async function assertWave(cwd: string, result: RunResult, level: number, nodes: string[]) {
  assertEquals(result.code, 0, result.stdout + result.stderr);
  const data = result.json.data;
  assertEquals(data.toolCalls.length, nodes.length);
  assertEquals(data.records.length, nodes.length);
  const records = await Promise.all(recordPaths(cwd, result).map((p) => readJson(join(cwd, p))));
  assertEquals(records.map((r) => r.graphNodeId), nodes);
  nodes.forEach((id, i) => {
    assertEquals(data.toolCalls[i].name, "Agent");
    assertEquals(data.toolCalls[i].args.description, `role-${id}:${id} for rid=001-dag`);
    assert(data.toolCalls[i].args.prompt.includes(marker(id)), `prompt of ${id}`);
  });
  for (const id of "abcdefg") {
    assert(!outsidePrompts(result.stdout).includes(marker(id)), `prompt ${id} leaked`);
  }
  // The caller named the batch: the envelope does not repeat it, nor does the hint.
  assert(!("batchId" in data));
  assertMatch(
    data.orchestratorVisibleHint,
    new RegExp(
      `^⏳ Spawning ${nodes.length} sub-agents via Agent tool: .* for rid=001-dag, level ${level}/3 \\(ETA ~60s\\)$`,
    ),
  );
  assertEquals(result.json.nextActions, [], "the tool calls are the next step");
}

Deno.test("7 nodes, 3 levels: one level per call, LEVEL_NOT_READY until it is finalized", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), SEVEN);

  const first = await fromDag(
    dir.path,
    "--batch-id",
    "b7",
    "--request-id",
    "001-dag",
    "--brief",
    "inline",
  );
  await assertWave(dir.path, first, 1, ["c", "a", "b"]);
  const level1 = recordPaths(dir.path, first);
  // Each node is a record in the batch carrying its node id, numbered 1..3 under one lock.
  for (const [i, path] of level1.entries()) {
    const record = await readJson(join(dir.path, path));
    assertEquals(record.graphNodeId, ["c", "a", "b"][i]);
    assertEquals(record.batchId, "b7");
    assertEquals(record.dispatchedInBatch, i + 1);
    assertEquals(record.status, "queued");
  }
  const early = await runNextAction(first.json.data.nextCall, { cwd: dir.path, env: CLAUDE });
  assertEquals(early.code, 3);
  assertEquals(early.json.code, "LEVEL_NOT_READY");
  for (const path of level1) assert(early.json.message.includes(path), path);
  assertEquals(early.json.data.waiting.length, 3);

  await finalizeAll(dir.path, level1.slice(0, 2));
  const still = await runNextAction(first.json.data.nextCall, { cwd: dir.path, env: CLAUDE });
  assertEquals(still.json.code, "LEVEL_NOT_READY");
  assertEquals(still.json.data.waiting.map((w: { nodeId: string }) => w.nodeId), ["b"]);
  assertEquals(still.json.data.waiting[0].recordPath, level1[2]);

  await finalizeAll(dir.path, level1.slice(2));
  const second = await runNextAction(first.json.data.nextCall, { cwd: dir.path, env: CLAUDE });
  await assertWave(dir.path, second, 2, ["d", "e"]);
  const level2 = recordPaths(dir.path, second);
  assertEquals(
    (await Promise.all(level2.map((p) => readJson(join(dir.path, p))))).map((r) =>
      r.dispatchedInBatch
    ),
    [4, 5],
  );

  await finalizeAll(dir.path, level2);
  const third = await runNextAction(second.json.data.nextCall, { cwd: dir.path, env: CLAUDE });
  await assertWave(dir.path, third, 3, ["f", "g"]);
  assert(!("nextCall" in third.json.data), "the last wave has no next call");

  // Everything out and never started (no heartbeat, no brief): the same call sends those calls
  // again, so a fan-out whose envelope was lost is recovered.
  const resent = await fromDag(dir.path, "--batch-id", "b7", "--request-id", "001-dag");
  assertEquals(resent.code, 0);
  assertEquals(resent.json.data.resent, true);
  assertEquals(resent.json.data.records, third.json.data.records);
  assertEquals(resent.json.data.toolCalls, third.json.data.toolCalls);
  // Once they run, nothing is left to send, and it says who runs.
  const level3 = recordPaths(dir.path, third);
  for (const record of level3) {
    const beat = await runPeaks(
      [
        ...heartbeatArgs(record, "10"),
        "--json",
      ],
      { cwd: dir.path },
    );
    assertEquals(beat.code, 0, beat.stdout);
  }
  const drained = await fromDag(dir.path, "--batch-id", "b7", "--request-id", "001-dag");
  assertEquals(drained.code, 0);
  assertEquals(drained.json.data.dispatchCount, 0);
  assertEquals(drained.json.data.waiting.length, 2);

  await finalizeAll(dir.path, level3);
  const done = await fromDag(dir.path, "--batch-id", "b7", "--request-id", "001-dag");
  assertEquals(done.code, 0);
  assertEquals(done.json.data.complete, true);
  assert(!("toolCalls" in done.json.data));
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
    assertEquals(Boolean(data.nextCall), wave < 3);
    sizes.push(data.toolCalls.length);
    assertEquals(
      result.json.warnings.filter((w: { code: string }) => w.code === "BATCH_OVER_LIMIT"),
      [],
    );
    await finalizeAll(dir.path, recordPaths(dir.path, result));
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
  // Pointer is the default brief.
  const result = await fromDag(dir.path);
  assertEquals(result.code, 0, result.stdout);
  for (const id of ["a", "b"]) assert(!result.stdout.includes(marker(id)));
  const data = result.json.data;
  const declared = await readJson(join(dir.path, recordPaths(dir.path, result)[1]));
  assertEquals(declared.declaredArtifacts, [`.peaks/_runtime/${sid}/qa/test-cases/001-x.md`]);
  assert(!("projectRoot" in data) && !("instructions" in data));
  for (const [i, call] of data.toolCalls.entries()) {
    assertEquals(
      call.args.prompt,
      `Run \`peaks sub-agent brief --record ${data.records[i]}\` and follow it.`,
    );
    const brief = await runPeaks(
      ["sub-agent", "brief", "--record", data.records[i], "--json"],
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

Deno.test("a DAG already out in one batch is not sent again under a new batch id", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), dag(["a", "b"], []));
  const first = await fromDag(dir.path, "--batch-id", "one");
  assertEquals(first.code, 0, first.stdout);
  const again = await fromDag(dir.path, "--batch-id", "two");
  assertEquals([again.code, again.json.code], [3, "DAG_ALREADY_DISPATCHED"]);
  assertEquals(again.json.data, { batchId: "one", open: ["a", "b"] });
  assertEquals((await dispatchFiles(dir.path, sid)).length, 2, "no record was duplicated");
  // Its nextAction continues the first batch (here: sends the calls that never started again).
  const resumed = await runNextAction(again.json.nextActions[0], { cwd: dir.path, env: CLAUDE });
  assertEquals(resumed.code, 0, resumed.stdout);
  assertEquals(resumed.json.data.records, first.json.data.records);
  // A batch that stopped on a failed node may be started over.
  await finalizeAll(dir.path, recordPaths(dir.path, first).slice(0, 1), "failed");
  const fresh = await fromDag(dir.path, "--batch-id", "three");
  assertEquals(fresh.code, 0, fresh.stdout);
});

Deno.test("a failed node blocks what depends on it: DAG_BLOCKED names both", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), dag(["a", "b", "c"], [["a", "c"], ["b", "c"]]));
  const first = await fromDag(dir.path, "--batch-id", "bf");
  const [a, b] = recordPaths(dir.path, first);
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
  const planned = join(dir.path, ".peaks", "_runtime", sid, "sc", "slice-dag-001-fan.json");
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
  assertMatch(warning.message, /^rd-planning, qa-test-cases can run now/);
  const fanned = await runNextAction(warning.command, { cwd: dir.path, env: CLAUDE });
  assertEquals(fanned.code, 0, fanned.stdout);
  assertEquals(fanned.json.data.toolCalls.length, 2);
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
    `peaks sub-agent dispatch --from-dag dag.json --batch-id tight --context-window 1000 --force --project ${dir.path} --json`,
  );
  const sent = await runNextAction(forced, { cwd: dir.path, env: CLAUDE });
  assertEquals(sent.code, 0, sent.stdout);
  assertEquals(sent.json.data.toolCalls.length, 2);
  assert(sent.json.data.forcedAt, "the envelope says the wave was forced");
});
