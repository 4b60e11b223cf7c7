/**
 * The change finalize leaves for review (`data.audit.changes`): the sub-agent's own, not what the
 * orchestrator wrote before dispatching it.
 */
import { assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runPeaks } from "../support/cli.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { initWorkspace, recordPathOf } from "../support/subagent.ts";
import { git, GIT_ENV } from "../support/slices.ts";

async function repo(root: string): Promise<void> {
  await git(root, "init", "-q", "-b", "main");
  await writeText(join(root, "README.md"), "a project\n");
  await git(root, "add", "README.md");
  await git(root, "commit", "-q", "-m", "start");
}

async function dispatchRd(cwd: string): Promise<string> {
  const args = ["sub-agent", "dispatch", "rd", "--request-id", "r1", "--prompt", "work", "--json"];
  const sent = await runPeaks(args, { cwd, env: { ...GIT_ENV, CLAUDECODE: "1" } });
  assertEquals(sent.code, 0, sent.stdout + sent.stderr);
  return join(cwd, recordPathOf(cwd, sent.json.data.record));
}

function finalize(cwd: string, record: string) {
  const args = ["sub-agent", "finalize", "--record", record, "--outcome", "done", "--json"];
  return runPeaks(args, { cwd, env: GIT_ENV });
}

Deno.test("files the orchestrator wrote before the dispatch are counted, not listed as the sub-agent's change", async () => {
  await using dir = await tempDir("peaks-changes-");
  await repo(dir.path);
  await initWorkspace(dir.path, GIT_ENV);
  // Written at startup, an hour before the dispatch (a file time, not a clock in the test).
  const startup = join(dir.path, "docs", "startup-notes.md");
  await writeText(startup, "written by the orchestrator\n");
  const hourAgo = new Date(Date.now() - 3_600_000);
  await Deno.utime(startup, hourAgo, hourAgo);
  const record = await dispatchRd(dir.path);
  await writeText(join(dir.path, "src.ts"), "the sub-agent's change\n");
  const result = await finalize(dir.path, record);
  assertEquals(result.code, 0, result.stdout);
  assertEquals(result.json.data.audit.changes, ["?? src.ts"]);
  assertEquals(result.json.data.audit.beforeDispatch, 1);
});
