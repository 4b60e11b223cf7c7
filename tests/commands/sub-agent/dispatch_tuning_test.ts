/**
 * Per-role model and effort preferences reach the host's own sub-agent tool
 * call, single (inline and pointer) and --from-dag, only where the host's
 * tool takes them; what it cannot take is a warning, never a refusal.
 */
import { assert, assertEquals } from "@std/assert";
import { runPeaks, type RunResult } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import { initWorkspace, readJson, recordPathOf } from "../../support/subagent.ts";
import { join } from "../../../lib/infra/std.ts";

async function project(preferences: unknown): Promise<{ path: string } & AsyncDisposable> {
  const dir = await tempDir();
  await initWorkspace(dir.path);
  await writeText(
    join(dir.path, ".peaks", "preferences.json"),
    typeof preferences === "string" ? preferences : JSON.stringify(preferences),
  );
  return dir;
}

function dispatch(cwd: string, ide: string, role: string, ...extra: string[]): Promise<RunResult> {
  return runPeaks(
    ["sub-agent", "dispatch", role, "--ide", ide, "--prompt", "x", ...extra, "--json"],
    { cwd },
  );
}

const codes = (result: RunResult) => result.json.warnings.map((w: { code: string }) => w.code);

const TUNED = { schema_version: "2.0.0", models: { rd: "opus" }, effort: { rd: "high" } };

Deno.test("models.rd and effort.rd reach Claude Code's Agent call, inline and pointer", async () => {
  await using dir = await project(TUNED);
  const inline = await dispatch(dir.path, "claude-code", "rd", "--brief", "inline");
  assertEquals(inline.code, 0, inline.stderr);
  assertEquals(inline.json.data.toolCall.args.model, "opus");
  assertEquals(inline.json.data.toolCall.args.effort, "high");
  assertEquals(codes(inline), []);
  // The record keeps the call as sent, so a resent call carries the same model.
  const record = await readJson(join(dir.path, recordPathOf(dir.path, inline.json.data.record)));
  assertEquals([record.toolCall?.args.model, record.toolCall?.args.effort], ["opus", "high"]);

  // rd-planning has no choice of its own: it takes rd's.
  const pointer = await dispatch(dir.path, "claude-code", "rd-planning", "--brief", "pointer");
  assertEquals(pointer.code, 0, pointer.stderr);
  assertEquals(pointer.json.data.toolCall.args.model, "opus");
  assertEquals(pointer.json.data.toolCall.args.effort, "high");
  // Another role gets neither.
  const qa = await dispatch(dir.path, "claude-code", "qa");
  assert(!("model" in qa.json.data.toolCall.args) && !("effort" in qa.json.data.toolCall.args));
});

Deno.test("Codex and Copilot take model and reasoning_effort; a role's own choice wins over its base", async () => {
  await using dir = await project({
    ...TUNED,
    models: { rd: "gpt-5.4", qa: "gpt-5.4-mini" },
    effort: { rd: "minimal" },
  });
  const codex = await dispatch(dir.path, "codex", "rd");
  assertEquals(codex.json.data.toolCall.args.model, "gpt-5.4");
  assertEquals(codex.json.data.toolCall.args.reasoning_effort, "minimal");
  const copilot = await dispatch(dir.path, "copilot", "qa-test-cases");
  assertEquals(copilot.json.data.toolCall.args.model, "gpt-5.4-mini");
  assert(!("reasoning_effort" in copilot.json.data.toolCall.args));
  assertEquals(codes(copilot), []);
});

Deno.test("a host whose tool takes no model, or not that value, gets PREFERENCE_NOT_PASSED", async () => {
  await using dir = await project({
    ...TUNED,
    models: { rd: "gpt-5.4" },
    effort: { rd: "minimal" },
  });
  for (const ide of ["gemini", "opencode", "qwen"]) {
    const result = await dispatch(dir.path, ide, "rd");
    assertEquals(result.code, 0, result.stderr);
    const args = result.json.data.toolCall.args;
    assert(!("model" in args) && !("effort" in args) && !("reasoning_effort" in args), ide);
    assertEquals(codes(result), ["PREFERENCE_NOT_PASSED", "PREFERENCE_NOT_PASSED"], ide);
  }
  // Claude Code's Agent tool lists its models and efforts: others are left out, and said so.
  const claude = await dispatch(dir.path, "claude-code", "rd");
  assert(!("model" in claude.json.data.toolCall.args));
  assertEquals(codes(claude), ["PREFERENCE_NOT_PASSED", "PREFERENCE_NOT_PASSED"]);
  assertEquals(claude.json.warnings.map((w: { key: string }) => w.key), ["models.rd", "effort.rd"]);
});

Deno.test("a broken preferences file is a warning, and the dispatch goes on without choices", async () => {
  await using dir = await project("{ not json");
  const result = await dispatch(dir.path, "claude-code", "rd");
  assertEquals(result.code, 0, result.stderr);
  assert(!("model" in result.json.data.toolCall.args));
  assertEquals(codes(result), ["PREFERENCES_UNREADABLE"]);
});

Deno.test("--from-dag passes each node's role choice in its own tool call", async () => {
  await using dir = await project({ ...TUNED, models: { rd: "opus", qa: "haiku" } });
  for (const brief of ["inline", "pointer"]) {
    // A second batch of the same DAG is refused: one DAG file per brief.
    await writeText(
      join(dir.path, `${brief}.json`),
      JSON.stringify({
        nodes: [
          { id: "plan", role: "rd", prompt: `Plan ${brief}.` },
          { id: "cases", role: "qa-test-cases", prompt: "Cases." },
          { id: "copy", role: "txt", prompt: "Copy." },
        ],
        edges: [],
      }),
    );
    const result = await runPeaks(
      [
        ...["sub-agent", "dispatch", "--from-dag", `${brief}.json`],
        ...["--ide", "claude-code", "--brief", brief, "--json"],
      ],
      { cwd: dir.path },
    );
    assertEquals(result.code, 0, result.stdout);
    const models = result.json.data.toolCalls.map((
      c: { args: Record<string, unknown> },
    ) => [c.args.description, c.args.model ?? null, c.args.effort ?? null]);
    assertEquals(models.length, 3);
    assertEquals(
      new Set(models.map((m: unknown[]) => `${m[1]}/${m[2]}`)),
      new Set([
        "opus/high",
        "haiku/null",
        "null/null",
      ]),
    );
  }
});
