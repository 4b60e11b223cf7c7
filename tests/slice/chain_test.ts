/**
 * The workflow's chain when RD planning sliced the work: after rd spec-locked the next step is the
 * slice fan-out, and a plain `dispatch rd` is warned while the plan is a draft or slices are out.
 */
import { assertEquals, assertMatch } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runPeaks, type RunResult } from "../support/cli.ts";
import { TECH_DOC } from "../support/request_fixture.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { fillPlaceholders } from "../support/request_fixture.ts";
import { prdText } from "../support/swarm.ts";
import { GIT_ENV, sliceRepo, writeSliceDag } from "../support/slices.ts";

const CLAUDE = { ...GIT_ENV, CLAUDECODE: "1" };

Deno.test("rd spec-locked with a slice DAG leads to the fan-out; a plain dispatch rd is warned", async () => {
  await using dir = await tempDir("peaks-chain-");
  const root = dir.path;
  const sid = await sliceRepo(root, CLAUDE);
  const peaks = (...args: string[]): Promise<RunResult> =>
    runPeaks([...args, "--json"], { cwd: root, env: CLAUDE });
  const session = `.peaks/_runtime/${sid}`;
  await writeText(
    join(root, session, "prd/requests/r1.md"),
    prdText("r1", "feature", "handed-off", "Add two files."),
  );
  const init = await peaks("request", "init", "--role", "rd", "--id", "r1", "--apply");
  assertEquals(init.code, 0, init.stdout);
  await fillPlaceholders(join(root, session, "rd/requests/r1.md"));

  // A plain dispatch while the RD request is a draft.
  const early = await peaks("sub-agent", "dispatch", "rd", "--request-id", "r1");
  assertEquals(early.code, 0, early.stdout + early.stderr);
  const draft = early.json.warnings.find((w: { code: string }) => w.code === "RD_SPEC_NOT_LOCKED");
  assertMatch(draft.command, /^peaks request transition r1 --role rd --state spec-locked/);
  // Closed before the next dispatch: a live RD copy would refuse it (SUB_AGENT_LIVE).
  const early_ = [
    "--record",
    early.json.data.record,
    "--outcome",
    "failed",
    "--error",
    "too early",
  ];
  assertEquals((await peaks("sub-agent", "finalize", ...early_)).code, 0);

  await writeText(join(root, session, "rd/tech-doc-r1.md"), TECH_DOC);
  await writeSliceDag(root, sid, [{ id: "a" }, { id: "b" }]);
  const locked = await peaks(
    "request",
    "transition",
    "r1",
    "--role",
    "rd",
    "--state",
    "spec-locked",
  );
  assertEquals(locked.code, 0, locked.stdout);
  assertMatch(locked.json.nextActions[0], /^peaks swarm slices --rid r1( |$)/);
  const checked = await peaks("swarm", "slices", "--rid", "r1");
  assertEquals(checked.code, 0, checked.stdout);
  assertMatch(
    checked.json.nextActions[0],
    /^peaks sub-agent dispatch --from-dag \S+slices-r1\.json /,
  );

  // A plain dispatch now, the slices not sent: warned, pointing at the fan-out.
  const plain = await peaks("sub-agent", "dispatch", "rd", "--request-id", "r1");
  assertEquals(plain.code, 0, plain.stdout + plain.stderr);
  const codes = plain.json.warnings.map((w: { code: string }) => w.code);
  assertEquals(codes.includes("RD_SPEC_NOT_LOCKED"), false);
  const pending = plain.json.warnings.find((w: { code: string }) => w.code === "SLICES_PENDING");
  assertMatch(pending.command, /^peaks swarm slices --rid r1/);
});
