/**
 * What people read in a terminal: the human output of list, status and
 * skills install says what it shows in words, with no internal shorthand.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { initWorkspace, recordPathOf } from "../support/subagent.ts";

const CLAUDE = { CLAUDECODE: "1" };
const RID = "feature-login-page-with-a-long-request-id";

Deno.test("sub-agent list has a header row and shows the whole request id", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const sent = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--prompt", "x", "--request-id", RID, "--json"],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(sent.code, 0, sent.stdout);
  const list = await runPeaks(["sub-agent", "list"], { cwd: dir.path });
  const [header, row] = list.stdout.trimEnd().split("\n");
  assertMatch(header, /^STATUS\s+PROGRESS\s+ROLE\s+REQUEST\s+RECORD$/);
  assert(row.includes(` ${RID} `), row);
  assertEquals(row.indexOf(RID), header.indexOf("REQUEST"));
});

Deno.test("sub-agent status: one dispatch is a sub-agent, not a swarm; never started is not running; the latest of several batches is named", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const dispatch = () =>
    runPeaks(["sub-agent", "dispatch", "rd", "--prompt", "x", "--json"], {
      cwd: dir.path,
      env: CLAUDE,
    });
  await dispatch();
  const alone = await runPeaks(["sub-agent", "status"], { cwd: dir.path });
  const lines = alone.stdout.trimEnd().split("\n");
  assertEquals(lines.length, 1, alone.stdout);
  assert(lines[0].includes("sub-agent not started"), lines[0]);
  assert(!lines[0].includes("swarm") && !lines[0].includes("running"), lines[0]);
  const second = await dispatch();
  const status = await runPeaks(["sub-agent", "status"], { cwd: dir.path });
  const which = status.stdout.trimEnd().split("\n")[1];
  // The lean envelope names the record; the batch peaks chose is in it.
  const record = recordPathOf(dir.path, second.json.data.record);
  const { batchId } = JSON.parse(await Deno.readTextFile(`${dir.path}/${record}`));
  assert(which.includes(`batch ${batchId}, the most recent of 2`), status.stdout);
});

Deno.test("skills install says what it did to the files in words", async () => {
  await using dir = await tempDir();
  const run = await runPeaks(
    ["skills", "install", "--agent", "claude-code", "--scope", "project"],
    {
      cwd: dir.path,
    },
  );
  assertEquals(run.code, 0, run.stderr);
  assertMatch(run.stdout, /\.claude\/skills \[claude-code\]: installed: \d+ files created\n/);
  assert(!/\(\d+ create\)/.test(run.stdout), run.stdout);
});
