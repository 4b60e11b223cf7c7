import { assert, assertEquals, assertMatch } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runPeaks } from "../support/cli.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { initWorkspace } from "../support/subagent.ts";
import { runNextAction } from "../support/next_actions.ts";
import { detachedEnv, fakeVendors, waitForExit } from "../support/detached.ts";

const DAG = {
  nodes: [
    { id: "plan", role: "rd-planning", prompt: "Plan the change." },
    { id: "cases", role: "qa-test-cases", prompt: "Write the test cases." },
    { id: "review", role: "rd-review", prompt: "Review the plan and the cases." },
  ],
  edges: [{ from: "plan", to: "review" }, { from: "cases", to: "review" }],
};

Deno.test("--from-dag --mode detached: each node of a level runs under its own supervisor; the next level follows", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { claude: "ok" });
  const env = detachedEnv(bin);
  await writeText(join(dir.path, "dag.json"), JSON.stringify(DAG));
  const call = [
    "sub-agent",
    "dispatch",
    "--from-dag",
    "dag.json",
    "--request-id",
    "r1",
    "--mode",
    "detached",
    "--json",
  ];

  const first = await runPeaks(call, { cwd: dir.path, env });
  assertEquals(first.code, 0, first.stdout + first.stderr);
  const data = first.json.data;
  assertEquals([data.mode, data.vendor, data.records.length], ["detached", "claude", 2]);
  assertMatch(data.orchestratorVisibleHint, /level 1\/2/);
  assertEquals(data.toolCalls, undefined, "detached nodes need no tool call");
  assertEquals(data.detached.length, 2);
  assertMatch(data.orchestratorVisibleHint, /^⏳ Spawning 2 sub-agents via detached claude: /);
  assertMatch(first.json.nextActions[0], /^peaks sub-agent watch --batch /);
  assertMatch(data.nextCall, /--mode detached --vendor claude/);

  // The supervisors end the records themselves; the next call then sends level 2.
  for (const run of data.detached) {
    const exit = await waitForExit(join(dir.path, run.runDir));
    assertEquals(exit.outcome, "done");
  }
  const next = await runPeaks([...data.nextCall.split(" ").slice(1), "--json"], {
    cwd: dir.path,
    env,
  });
  assertEquals(next.code, 0, next.stdout);
  assertEquals(next.json.data.records.length, 1);
  assertMatch(next.json.data.orchestratorVisibleHint, /level 2\/2/);
  const record = JSON.parse(
    await Deno.readTextFile(join(dir.path, next.json.data.detached[0].dispatchRecordPath)),
  );
  assertEquals([record.mode, record.vendor, record.graphNodeId], ["detached", "claude", "review"]);
  await waitForExit(join(dir.path, next.json.data.detached[0].runDir));
  const watch = await runNextAction(next.json.nextActions[0], { cwd: dir.path, env });
  assertEquals(watch.code, 0, watch.stdout);
});

Deno.test("--from-dag --mode detached: a wave larger than the free budget is refused before anything starts", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { claude: "ok" });
  await writeText(join(dir.path, "dag.json"), JSON.stringify(DAG));
  const refused = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "--from-dag",
      "dag.json",
      "--mode",
      "detached",
      "--max-concurrent",
      "1",
      "--json",
    ],
    { cwd: dir.path, env: detachedEnv(bin) },
  );
  assertEquals(refused.code, 3, refused.stdout);
  assertEquals(refused.json.code, "RESOURCE_BUDGET_EXCEEDED");
  assert(refused.json.nextActions[0].includes("--no-throttle"));
  const agents = join(dir.path, ".peaks", "_sub_agents", sid);
  const records = await Array.fromAsync(Deno.readDir(agents)).catch(() => []);
  assertEquals(records.filter((e) => e.name.startsWith("dispatch-")), [], "no record was written");
});

Deno.test("a host without a sub-agent tool gets the detached DAG call as its next action, and it runs", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { gemini: "ok" });
  const env = { ...detachedEnv(bin), TRAE_AI: "1" };
  delete (env as Record<string, string>).CLAUDECODE;
  await writeText(join(dir.path, "dag.json"), JSON.stringify(DAG));
  const refused = await runPeaks(["sub-agent", "dispatch", "--from-dag", "dag.json", "--json"], {
    cwd: dir.path,
    env,
  });
  assertEquals(refused.code, 3);
  assertEquals(refused.json.code, "IDE_NOT_SUPPORTED");
  const [action] = refused.json.nextActions;
  assertMatch(action, /--mode detached --vendor gemini --project /);
  const started = await runNextAction(action, { cwd: dir.path, env });
  assertEquals(started.code, 0, started.stdout);
  assertEquals(started.json.data.vendor, "gemini");
  for (const run of started.json.data.detached) await waitForExit(join(dir.path, run.runDir));
});
