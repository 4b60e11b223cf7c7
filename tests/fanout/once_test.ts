/**
 * One DAG fans out once: however many `--from-dag` calls without `--batch-id`
 * run at the same moment, exactly one sends the graph; every other one is
 * refused with DAG_ALREADY_DISPATCHED naming that batch, and its nextAction
 * continues it. Run one after another, the second is refused the same way.
 */
import { assert, assertEquals } from "@std/assert";
import { runPeaks, type RunResult } from "../support/cli.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { initWorkspace } from "../support/subagent.ts";
import { join } from "../../lib/infra/std.ts";

const CLAUDE = { CLAUDECODE: "1" };
const CALLS = 8;

const DAG = JSON.stringify({
  nodes: ["a", "b", "c"].map((id) => ({ id, role: `role-${id}`, prompt: `Do ${id}.` })),
  edges: [{ from: "a", to: "c" }],
});

function fromDag(cwd: string, ...extra: string[]): Promise<RunResult> {
  return runPeaks(["sub-agent", "dispatch", "--from-dag", "dag.json", ...extra, "--json"], {
    cwd,
    env: CLAUDE,
  });
}

async function dispatchRecords(root: string, sid: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(join(root, ".peaks", "_sub_agents", sid))) {
    if (entry.name.startsWith("dispatch-")) names.push(entry.name);
  }
  return names;
}

async function batchFiles(root: string, sid: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(join(root, ".peaks", "_sub_agents", sid))) {
    if (entry.name.startsWith("batch-") && entry.name.endsWith(".json")) names.push(entry.name);
  }
  return names;
}

Deno.test(`${CALLS} concurrent --from-dag calls without --batch-id fan the DAG out once`, async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), DAG);
  const results = await Promise.all(Array.from({ length: CALLS }, () => fromDag(dir.path)));
  const sent = results.filter((r) => r.code === 0);
  assertEquals(sent.length, 1, results.map((r) => r.stdout).join("\n"));
  const batchId = sent[0].json.data.batchId;
  assertEquals(sent[0].json.data.records.length, 2, "the first level: a and b");
  for (const refused of results.filter((r) => r.code !== 0)) {
    assertEquals([refused.code, refused.json.code], [3, "DAG_ALREADY_DISPATCHED"], refused.stdout);
    assertEquals(refused.json.data.batchId, batchId);
    assert(refused.json.nextActions[0].includes(`--batch-id ${batchId}`));
  }
  assertEquals((await dispatchRecords(dir.path, sid)).length, 2, "no node went out twice");
  assertEquals(await batchFiles(dir.path, sid), [`batch-${batchId}.json`]);
});

Deno.test("--from-dag twice in a row without --batch-id: the second is refused", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(join(dir.path, "dag.json"), DAG);
  const first = await fromDag(dir.path);
  assertEquals(first.code, 0, first.stdout);
  const again = await fromDag(dir.path);
  assertEquals([again.code, again.json.code], [3, "DAG_ALREADY_DISPATCHED"], again.stdout);
  assertEquals(again.json.data, { batchId: first.json.data.batchId, open: ["a", "b"] });
  assertEquals((await dispatchRecords(dir.path, sid)).length, 2);
});
