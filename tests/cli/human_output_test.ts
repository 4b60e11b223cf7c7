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

Deno.test("dispatch shows the tool call itself, and heartbeat says what it recorded", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const sent = await runPeaks(["sub-agent", "dispatch", "rd", "--prompt", "build it"], {
    cwd: dir.path,
    env: CLAUDE,
  });
  assertEquals(sent.code, 0, sent.stderr);
  assert(!sent.stdout.includes("--json"), sent.stdout);
  assertMatch(
    sent.stdout,
    /tool call for the host to make \(the sub-agent.s brief is \d+ bytes\):\n {2}\w+ \{/,
  );
  assertMatch(sent.stdout, /"subagent_type": /);
  const record = /record: (\S+)/.exec(sent.stdout)![1];
  const beat = await runPeaks(
    ["sub-agent", "heartbeat", "--record", record, "--status", "running", "--progress", "40"],
    { cwd: dir.path },
  );
  assertMatch(beat.stdout, /^heartbeat recorded: running 40% \(1 beat\(s\) on record\)$/m);
  assert(!beat.stdout.includes("kept"), beat.stdout);
});

Deno.test("request show names the moves it can make in words; next: comes once", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const init = ["request", "init", "--role", "prd", "--id", "001-a", "--type", "feature"];
  assertEquals((await runPeaks([...init, "--apply"], { cwd: dir.path })).code, 0);
  const shown = await runPeaks(["request", "show", "001-a", "--role", "prd"], { cwd: dir.path });
  assertEquals(shown.code, 0, shown.stderr);
  assertMatch(shown.stdout, /^can move to blocked: (yes|not yet)/m);
  assert(!/^next \S+: (ready|not ready)/m.test(shown.stdout), shown.stdout);
  assert((shown.stdout.match(/^next:/gm) ?? []).length <= 1, shown.stdout);
});

Deno.test("standards init says what it would do to each file in words", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const preview = await runPeaks(["standards", "init"], { cwd: dir.path });
  assertMatch(preview.stdout, /^ {2}CLAUDE\.md: would be created with the peaks block/m);
  assert(!/appended|planned {2}/.test(preview.stdout), preview.stdout);
});
