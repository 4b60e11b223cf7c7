import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir } from "../../support/temp.ts";
import { initWorkspace, readJson as readRecord, recordPathOf } from "../../support/subagent.ts";
import { join } from "../../../lib/infra/std.ts";

type Sample = [string, Record<string, unknown>];
const FIXTURES = JSON.parse(
  await Deno.readTextFile(new URL("../../fixtures/hooks/events.json", import.meta.url)),
) as Record<string, Record<string, Sample>>;

// deno-lint-ignore no-explicit-any
const readJson = (path: string): Promise<any> => readRecord(path);

const RESULT = JSON.stringify({
  role: "rd",
  rid: "r1",
  status: "ok",
  artefacts: [],
  warnings: [],
});

/** The sample with $CWD, $PROMPT and $REPLY put in (inside string values, as the host would). */
function fill(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === "string") {
    return value.replace(/\$(CWD|PROMPT|REPLY)/g, (_, k: string) => vars[k] ?? "");
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)]));
  }
  return value;
}

async function hook(
  cwd: string,
  host: string,
  sample: string,
  vars: Record<string, string>,
) {
  const [event, body] = FIXTURES[host][sample];
  const result = await runPeaks(["hooks", "run", "--host", host, "--event", event], {
    cwd,
    stdin: JSON.stringify(fill(body, { CWD: cwd, ...vars })),
  });
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.stderr, "");
  return result.stdout.trim() ? JSON.parse(result.stdout) : undefined;
}

async function dispatched(cwd: string) {
  await initWorkspace(cwd);
  const out = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--prompt", "build it", "--request-id", "r1", "--json"],
    { cwd },
  );
  assertEquals(out.code, 0, out.stderr);
  const path = join(cwd, recordPathOf(cwd, out.json.data.record));
  return { path, prompt: out.json.data.toolCall.args.prompt as string };
}

const DENIALS: Record<string, (answer: Record<string, unknown>) => unknown> = {
  "claude-code": (a) => (a.hookSpecificOutput as Record<string, unknown>).permissionDecision,
  "qwen-code": (a) => (a.hookSpecificOutput as Record<string, unknown>).permissionDecision,
  codex: (a) => (a.hookSpecificOutput as Record<string, unknown>).permissionDecision,
  copilot: (a) => a.permissionDecision,
  opencode: (a) => (a.hookSpecificOutput as Record<string, unknown>).permissionDecision,
};

for (const host of ["claude-code", "qwen-code", "codex", "copilot", "opencode"]) {
  Deno.test(`${host}: the hooks open the record, refuse the sub-agent's commit, close it once`, async () => {
    await using dir = await tempDir();
    const { path, prompt } = await dispatched(dir.path);
    const vars = { PROMPT: prompt, REPLY: "I looked around and stopped." };

    const start = await hook(dir.path, host, "start", vars);
    const context = host === "copilot"
      ? start.additionalContext
      : start.hookSpecificOutput.additionalContext;
    assertMatch(context, /^peaks: request r1 .*sub-agents: 1 live, 0 stale/);
    assert(new TextEncoder().encode(context).length <= 300);
    // Claude Code's answer carries the top-level form too, for Copilot CLI running the plugin.
    if (host === "claude-code") assertEquals(start.additionalContext, context);

    assertEquals(await hook(dir.path, host, "dispatch", vars), undefined);
    let record = await readJson(path);
    assertEquals(record.status, "running");
    assertEquals(record.hostAgent.host, host);
    if (FIXTURES[host].launched) await hook(dir.path, host, "launched", vars);
    await hook(dir.path, host, "agentStart", vars);
    record = await readJson(path);
    assertEquals(record.hostAgent.id, FIXTURES[host].agentStop[1].agent_id ?? "c316");

    assertEquals(DENIALS[host](await hook(dir.path, host, "subShell", vars)), "deny");

    await hook(dir.path, host, "agentStop", vars);
    record = await readJson(path);
    assertEquals([record.status, record.error], ["failed", "ended-without-report"]);
    const closedAt = record.completedAt;
    await hook(dir.path, host, "agentStop", { ...vars, REPLY: RESULT });
    record = await readJson(path);
    assertEquals([record.status, record.completedAt], ["failed", closedAt]);
  });
}

Deno.test("claude-code: a sub-agent that reported keeps its done; a return JSON alone closes it done", async () => {
  await using dir = await tempDir();
  const { path, prompt } = await dispatched(dir.path);
  const vars = { PROMPT: prompt, REPLY: RESULT };
  await hook(dir.path, "claude-code", "dispatch", vars);
  await hook(dir.path, "claude-code", "launched", vars);
  const beat = await runPeaks(
    ["sub-agent", "heartbeat", "--record", path, "--status", "done", "--progress", "100"],
    { cwd: dir.path },
  );
  assertEquals(beat.code, 0, beat.stderr);
  const reported = await readJson(path);
  await hook(dir.path, "claude-code", "agentStop", vars);
  const after = await readJson(path);
  assertEquals([after.status, after.completedAt, after.error], [
    "done",
    reported.completedAt,
    null,
  ]);

  const second = await dispatched(dir.path);
  await hook(dir.path, "claude-code", "dispatch", { PROMPT: second.prompt });
  await hook(dir.path, "claude-code", "launched", { PROMPT: second.prompt });
  await hook(dir.path, "claude-code", "agentStop", { REPLY: `Finished.\n${RESULT}` });
  const closed = await readJson(second.path);
  assertEquals([closed.status, closed.result.status, closed.error], ["done", "ok", null]);
});

Deno.test("claude-code: a sub-agent the host reports failed ends failed with the host's error", async () => {
  await using dir = await tempDir();
  const { path, prompt } = await dispatched(dir.path);
  await hook(dir.path, "claude-code", "dispatch", { PROMPT: prompt });
  await hook(dir.path, "claude-code", "launched", { PROMPT: prompt });
  await hook(dir.path, "claude-code", "agentFailed", {});
  const record = await readJson(path);
  assertEquals([record.status, record.error], ["failed", "host-reported-failure: server_error"]);
});

Deno.test("gemini and copilot: a synchronous sub-agent tool closes the record from its answer", async () => {
  for (const host of ["gemini", "copilot"]) {
    await using dir = await tempDir();
    const { path, prompt } = await dispatched(dir.path);
    await hook(dir.path, host, "dispatch", { PROMPT: prompt });
    await hook(dir.path, host, "toolEnd", { PROMPT: prompt, REPLY: RESULT });
    const record = await readJson(path);
    assertEquals([host, record.status, record.result?.rid], [host, "done", "r1"]);
  }
});

Deno.test("the orchestrator's own commit and a prompt peaks did not dispatch are left alone", async () => {
  await using dir = await tempDir();
  const { path } = await dispatched(dir.path);
  assertEquals(await hook(dir.path, "claude-code", "shell", {}), undefined);
  await hook(dir.path, "claude-code", "dispatch", { PROMPT: "write a poem" });
  assertEquals((await readJson(path)).status, "queued");
});
