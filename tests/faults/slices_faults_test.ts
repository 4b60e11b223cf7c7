/**
 * SIGKILL fault injection against slice worktrees: creation, merge and
 * removal are killed (peaks alone or with its git children), then cleanup
 * repairs and the repository must be whole (tests/faults/slice_harness.ts).
 * The normal run is short and seeded; `deno task test:faults` runs the long
 * one (PEAKS_SLICE_FAULTS_INJECTIONS, default 200). PEAKS_FAULTS_SEED replays.
 */
import { assert, assertEquals } from "@std/assert";
import { countFromEnv, rng, seedFromEnv } from "../support/prng.ts";
import { tempDir } from "../support/temp.ts";
import { SliceWorld } from "./slice_harness.ts";
import { recordPathOf } from "../support/subagent.ts";

const LONG = Deno.env.get("PEAKS_FAULTS") === "long";
const TARGET = countFromEnv("PEAKS_SLICE_FAULTS_INJECTIONS", LONG ? 200 : 12);
const SEED = seedFromEnv("PEAKS_FAULTS_SEED", LONG ? undefined : 20261201);

/** Kills until TARGET of them, each followed by the repair and the check; no violation allowed. */
async function killAndRepair(ide: "opencode" | "claude-code"): Promise<void> {
  await using dir = await tempDir("peaks-slice-faults-");
  const world = new SliceWorld(dir.path, rng(SEED), ide);
  await world.start();
  // One unkilled round learns how long each step takes.
  await world.playRound(0);
  const violations: string[] = [...await world.repair(), ...await world.check()];
  let rounds = 0;
  const killed = () => world.results.filter((r) => r.killed);
  while (killed().length < TARGET && violations.length === 0) {
    assert(rounds++ < TARGET * 2, `only ${killed().length} kills in ${rounds} rounds`);
    await world.playRound(0.5);
    violations.push(...await world.repair(), ...await world.check());
  }
  const byKind: Record<string, number> = {};
  for (const r of killed()) {
    byKind[`${r.kind}${r.group ? "+git" : ""}`] =
      (byKind[`${r.kind}${r.group ? "+git" : ""}`] ?? 0) + 1;
  }
  const summary = {
    ide,
    seed: SEED,
    rounds: world.round,
    injections: killed().length,
    byKind,
    violations,
  };
  console.log(`slice faults: ${JSON.stringify(summary)}`);
  const out = Deno.env.get("PEAKS_FAULTS_REPORT");
  if (out) {
    await Deno.writeTextFile(`${out}.slices-${ide}.json`, JSON.stringify(summary, null, 2) + "\n");
  }
  assertEquals(violations, [], `seed ${SEED}: replay with PEAKS_FAULTS_SEED=${SEED}`);
  assert(killed().length >= TARGET);
}

Deno.test(`slice worktrees under .git: ${TARGET} kills during create, merge and remove, each repaired by cleanup (seed ${SEED})`, () =>
  killAndRepair("opencode"));

Deno.test(`slice worktrees under the project's .claude/worktrees (Claude Code): ${TARGET} kills, each repaired by cleanup (seed ${SEED})`, () =>
  killAndRepair("claude-code"));

Deno.test("the slice check sees what a creation killed inside git leaves (a locked entry git cannot prune), and cleanup repairs it", async () => {
  await using dir = await tempDir("peaks-slice-faults-");
  const world = new SliceWorld(dir.path, rng(1));
  await world.start();
  const { batch } = await world.playRound(0);
  assertEquals(await world.check(), []);
  // A second round whose creation "died" inside `git worktree add`: record still creating,
  // git's entry locked ("initializing"), the checkout folder half there.
  // Another graph (one DAG goes out in one batch): round 1's slices with other prompts.
  const again = `.peaks/_runtime/${world.sid}/rd/slices-round1-again.json`;
  const dag = JSON.parse(
    await Deno.readTextFile(`${dir.path}/.peaks/_runtime/${world.sid}/rd/slices-round1.json`),
  );
  for (const node of dag.nodes) node.prompt = `${node.prompt} Again.`;
  await Deno.writeTextFile(`${dir.path}/${again}`, JSON.stringify(dag));
  const sent = await world.run("create", [
    "sub-agent",
    "dispatch",
    "--from-dag",
    again,
    "--batch-id",
    `${batch}-again`,
    "--request-id",
    "round1",
    "--ide",
    "opencode",
  ]);
  assertEquals(sent.code, 0, JSON.stringify(sent.json));
  const record = `${dir.path}/${recordPathOf(dir.path, sent.json.data.slices[0].record)}`;
  const json = JSON.parse(await Deno.readTextFile(record));
  json.worktree.state = "creating";
  await Deno.writeTextFile(record, JSON.stringify(json));
  const admin = (await Array.fromAsync(Deno.readDir(`${dir.path}/.git/worktrees`)))
    .map((e) => e.name).find((n) => json.worktree.path.endsWith(`/${n}`))!;
  await Deno.writeTextFile(`${dir.path}/.git/worktrees/${admin}/locked`, "initializing");
  await Deno.remove(json.worktree.path, { recursive: true });
  const before = await world.check();
  assert(before.some((v) => v.includes("still creating")), before.join("\n"));
  assert(before.some((v) => v.includes("as locked")), before.join("\n"));
  assertEquals(await world.repair(), []);
  assertEquals(await world.check(), []);
});
