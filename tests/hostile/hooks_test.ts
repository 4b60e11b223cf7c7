/**
 * A hook never harms the host's turn: whatever arrives on stdin, wherever it runs, and whatever
 * holds the record, `peaks hooks run` exits 0 with nothing on stderr and no answer the host
 * would take as a refusal; the problem goes to the workspace's hook log.
 */
import { assert, assertEquals } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { initWorkspace, recordPathOf } from "../support/subagent.ts";
import { join } from "../../lib/infra/std.ts";
import { lockPathFor } from "../../lib/infra/fs/lock.ts";

const HOSTS = ["claude-code", "qwen-code", "gemini", "codex", "copilot"];

const INPUTS: Record<string, string> = {
  garbage: "}{ not json at all",
  empty: "",
  array: "[1,2,3]",
  "wrong types": JSON.stringify({
    hook_event_name: 7,
    tool_name: ["Agent"],
    tool_input: "prompt",
    agent_id: { x: 1 },
    cwd: 42,
  }),
  "path escape": JSON.stringify({
    tool_name: "Agent",
    tool_input: {
      prompt: "Run `peaks sub-agent brief --record ../../../etc/passwd` and follow it.",
    },
    cwd: "/nonexistent/place",
  }),
  "deep nesting": "[".repeat(100_000),
  "huge": JSON.stringify({ tool_name: "Agent", tool_input: { prompt: "x".repeat(900_000) } }),
};

async function quiet(cwd: string, host: string, event: string, stdin: string, env = {}) {
  const result = await runPeaks(["hooks", "run", "--host", host, "--event", event], {
    cwd,
    stdin,
    env,
  });
  assertEquals(result.code, 0, `${host} ${event}: ${result.stderr}`);
  assertEquals(result.stderr, "");
  if (result.stdout.trim()) {
    const answer = JSON.parse(result.stdout);
    assert(!JSON.stringify(answer).includes("deny"), result.stdout);
  }
  return result;
}

Deno.test("hooks run: hostile stdin exits 0 quietly on every host and event, and is logged", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  for (const [name, stdin] of Object.entries(INPUTS)) {
    for (const host of HOSTS) {
      for (const event of ["PreToolUse", "SubagentStop", "preToolUse", "AfterTool"]) {
        await quiet(dir.path, host, event, stdin);
      }
    }
    assert(name);
  }
  const log = await Deno.readTextFile(join(dir.path, ".peaks", "_runtime", "hooks.log"));
  assert(log.includes('"problem":"stdin-not-json"'));
});

Deno.test("hooks run: no workspace, unknown host or event, missing flags: exit 0, nothing created", async () => {
  await using dir = await tempDir();
  const start = JSON.stringify({ hook_event_name: "SessionStart", source: "startup" });
  await quiet(dir.path, "claude-code", "SessionStart", start);
  await quiet(dir.path, "no-such-host", "SessionStart", start);
  await quiet(dir.path, "claude-code", "NoSuchEvent", start);
  const bare = await runPeaks(["hooks", "run"], { cwd: dir.path, stdin: start });
  assertEquals([bare.code, bare.stdout, bare.stderr], [0, "", ""]);
  assertEquals(
    [...Deno.readDirSync(dir.path)].map((e) => e.name).filter((n) => n === ".peaks"),
    [],
  );
});

Deno.test("hooks run: a record whose lock is held is given up on, exit 0, logged", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const out = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--prompt", "p", "--request-id", "r1", "--json"],
    { cwd: dir.path },
  );
  const path = join(dir.path, recordPathOf(dir.path, out.json.data.record));
  using lock = Deno.openSync(lockPathFor(path), { read: true, write: true, create: true });
  lock.lockSync(true);
  const stdin = JSON.stringify({
    tool_name: "Agent",
    tool_input: { prompt: out.json.data.toolCall.args.prompt },
    cwd: dir.path,
  });
  await quiet(dir.path, "claude-code", "PreToolUse", stdin, { PEAKS_LOCK_TIMEOUT_MS: "200" });
  lock.unlockSync();
  const log = await Deno.readTextFile(join(dir.path, ".peaks", "_runtime", "hooks.log"));
  assert(log.includes('"problem":"error'), log);
  assertEquals(JSON.parse(await Deno.readTextFile(path)).status, "queued");
});
