/**
 * What a writer killed half-way leaves behind, replayed on purpose: a dispatch
 * killed after reserving its number, and a transition killed after writing
 * its allow-incomplete ledger entry. Readers and the next writer settle both,
 * so no number is handed out twice and no override is counted that never
 * happened. (tests/faults/ finds these windows by killing real writers.)
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runPeaks } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { initWorkspace, recordPathOf } from "../support/subagent.ts";
import { checkState } from "../support/state_check.ts";

const env = { CLAUDECODE: "1" };

async function dispatch(cwd: string, batch: string) {
  const result = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--batch-id", batch, "--prompt", "work", "--json"],
    { cwd, env },
  );
  assertEquals(result.code, 0, result.stdout);
  // The envelope names the record; its number in the batch is in the record.
  return JSON.parse(await Deno.readTextFile(join(cwd, recordPathOf(cwd, result.json.data.record))));
}

/** Leaves the batch as a dispatch killed after its intent (and maybe its record) was written. */
async function killedDispatch(root: string, sid: string, batch: string, withRecord: boolean) {
  const dir = join(root, ".peaks", "_sub_agents", sid);
  const batchPath = join(dir, `batch-${batch}.json`);
  const file = JSON.parse(await Deno.readTextFile(batchPath));
  const n = file.count + 1;
  const name = `dispatch-killed-rd-0000000${n}-beef.json`;
  file.count = n;
  file.pending = [{ n, role: "rd", requestId: "killed", record: name, addedAt: file.updatedAt }];
  await Deno.writeTextFile(batchPath, JSON.stringify(file));
  if (withRecord) {
    const first = JSON.parse(await Deno.readTextFile(join(dir, file.members[0].record)));
    await Deno.writeTextFile(
      join(dir, name),
      JSON.stringify({ ...first, requestId: "killed", dispatchedInBatch: n }),
    );
  }
  return name;
}

Deno.test("a dispatch killed after creating its record: the record is a member, its number is never reused", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await dispatch(dir.path, "b1");
  const orphan = await killedDispatch(dir.path, sid, "b1", true);
  const status = await runPeaks(["sub-agent", "status", "--batch", "b1", "--json"], {
    cwd: dir.path,
    env,
  });
  assertEquals(status.json.data.counts.total, 2, status.stdout);
  const next = await dispatch(dir.path, "b1");
  assertEquals(next.dispatchedInBatch, 3);
  const batch = JSON.parse(
    await Deno.readTextFile(join(dir.path, ".peaks", "_sub_agents", sid, "batch-b1.json")),
  );
  assertEquals(batch.members.map((m: { n: number }) => m.n), [1, 2, 3]);
  assertEquals(batch.members[1].record, orphan);
  assertEquals(batch.pending, undefined);
  assertEquals((await checkState(dir.path)).violations, []);
});

Deno.test("a dispatch killed before creating its record gives its number back", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await dispatch(dir.path, "b1");
  await killedDispatch(dir.path, sid, "b1", false);
  const list = await runPeaks(["sub-agent", "status", "--batch", "b1", "--json"], {
    cwd: dir.path,
    env,
  });
  assertEquals(list.json.data.counts.total, 1, list.stdout);
  assertEquals((await dispatch(dir.path, "b1")).dispatchedInBatch, 2);
  assertEquals((await checkState(dir.path)).violations, []);
});

Deno.test("allow-incomplete entries of killed transitions are not counted against the limit", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const peaks = (...args: string[]) => runPeaks([...args, "--json"], { cwd: dir.path, env });
  for (const rid of ["a", "b"]) {
    assertEquals((await peaks("request", "init", "--role", "prd", "--id", rid, "--apply")).code, 0);
  }
  // Three transitions that wrote their ledger entry and died before their request file.
  const ledger = join(dir.path, ".peaks", "_runtime", sid, "request-overrides.json");
  const orphans = [
    "2026-01-01T00:00:01.000Z",
    "2026-01-01T00:00:02.000Z",
    "2026-01-01T00:00:03.000Z",
  ]
    .map((at) => ({
      at,
      rid: "a",
      role: "prd",
      from: "draft",
      to: "confirmed-by-user",
      reason: "killed",
      bypassed: ["lint"],
    }));
  await Deno.writeTextFile(
    ledger,
    JSON.stringify({ version: 1, sessionId: sid, entries: orphans }),
  );
  const moved = await peaks(
    "request",
    "transition",
    "b",
    "--role",
    "prd",
    "--state",
    "confirmed-by-user",
    "--allow-incomplete",
    "--reason",
    "real one",
  );
  assertEquals(moved.code, 0, moved.stdout);
  assertEquals(moved.json.data.allowIncomplete.used, 1);
  const after = JSON.parse(await Deno.readTextFile(ledger));
  assertEquals(after.entries.map((e: { reason: string }) => e.reason), ["real one"]);
  const state = await checkState(dir.path);
  assertEquals(state.violations, []);
  assert(state.requests.size === 2);
});
