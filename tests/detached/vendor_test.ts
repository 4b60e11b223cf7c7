/**
 * Choosing and feeding the vendor: fallback to an installed one, a clear
 * VENDOR_NOT_FOUND, the history-boundary refusal, the per-vendor argument
 * cap, and the flags that only mean something in detached mode.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import {
  detachedEnv,
  dispatchDetached,
  fakeFiles,
  fakeVendors,
  readJsonFile,
  waitForExit,
} from "../support/detached.ts";
import { runNextAction } from "../support/next_actions.ts";
import { agentsDir, initWorkspace } from "../support/subagent.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { join } from "../../lib/infra/std.ts";

const MARKER = "@@@ORCHESTRATOR_SESSION_HISTORY_BOUNDARY@@@";

async function records(root: string, sid: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(agentsDir(root, sid))) {
      if (entry.name.startsWith("dispatch-")) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

Deno.test("a vendor that is not installed falls back to an installed one with a warning", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { codex: "ok" });
  const run = await dispatchDetached(dir.path, detachedEnv(bin), "rd", [
    "--vendor",
    "claude",
    "--prompt",
    "x",
  ]);
  const { data, warnings } = run.result.json;
  assertEquals([data.vendor, data.requestedVendor], ["codex", "claude"]);
  const fallback = warnings.find((w: { code: string }) => w.code === "VENDOR_FALLBACK");
  assertEquals([fallback.requested, fallback.vendor, fallback.installed], [
    "claude",
    "codex",
    ["codex"],
  ]);
  assertEquals((await waitForExit(run.runDir)).outcome, "done");
  assertEquals((await readJsonFile(run.recordPath)).vendor, "codex");
});

Deno.test("no vendor installed: VENDOR_NOT_FOUND at once, nothing written, an in-process way out", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const env = { PATH: join(dir.path, "empty-bin"), CLAUDECODE: "1" };
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "rd",
      "--mode",
      "detached",
      "--vendor",
      "gemini",
      "--prompt",
      "x",
      "--json",
    ],
    { cwd: dir.path, env },
  );
  assertEquals([result.code, result.json.code], [1, "VENDOR_NOT_FOUND"]);
  assertEquals(result.json.data.installed, []);
  assertEquals(result.json.data.requested, "gemini");
  assertStringIncludes(result.json.message, "claude, codex, copilot, gemini, opencode");
  assertEquals(await records(dir.path, sid), []);
  const [inProcess] = result.json.nextActions;
  assert(!inProcess.includes("--mode"));
  const replay = await runNextAction(inProcess, { cwd: dir.path, env });
  assertEquals(replay.code, 0, replay.stdout);
  assertEquals(replay.json.data.toolCall.name, "Agent");
});

Deno.test("the session-history marker anywhere in a detached prompt is refused", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { claude: "ok" });
  await writeText(join(dir.path, "task.md"), `Do this.\n\n${MARKER}\nold conversation\n`);
  const result = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--mode", "detached", "--prompt-file", "task.md", "--json"],
    { cwd: dir.path, env: detachedEnv(bin) },
  );
  assertEquals([result.code, result.json.code], [3, "HISTORY_BOUNDARY_IN_PROMPT"]);
  assertEquals(await records(dir.path, sid), []);
});

Deno.test("an argument-fed vendor has a cap; --brief pointer and a stdin vendor get past it", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { opencode: "args", claude: "ok" });
  const env = detachedEnv(bin);
  await writeText(
    join(dir.path, "big.md"),
    `${"Check every form field carefully. ".repeat(300)}\n`,
  );
  const refused = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "ui",
      "--mode",
      "detached",
      "--vendor",
      "opencode",
      "--prompt-file",
      "big.md",
      "--json",
    ],
    { cwd: dir.path, env },
  );
  assertEquals([refused.code, refused.json.code], [3, "PROMPT_TOO_LARGE"]);
  assertEquals([refused.json.data.vendor, refused.json.data.cap], ["opencode", 8192]);
  assert(refused.json.data.promptSize > 8192);
  assertEquals(await records(dir.path, sid), []);
  const [pointer, switched] = refused.json.nextActions;
  assertMatch(pointer, /--brief pointer/);
  assertMatch(switched, /--vendor claude/);

  const viaPointer = await runNextAction(pointer, { cwd: dir.path, env });
  assertEquals(viaPointer.code, 0, viaPointer.stdout);
  const pointerRun = join(dir.path, viaPointer.json.data.detached.runDir);
  assertEquals((await waitForExit(pointerRun)).outcome, "done");
  const [args] = await fakeFiles(dir.path, sid, "args-");
  const [run, format, json, message] = (await Deno.readTextFile(args)).trim().split("\n");
  assertEquals([run, format, json], ["run", "--format", "json"]);
  assertMatch(message, /^Run `peaks sub-agent brief --record dispatch-[^`]+` and follow it\.$/);

  const viaStdin = await runNextAction(switched, { cwd: dir.path, env });
  assertEquals(viaStdin.code, 0, viaStdin.stdout);
  assertEquals(viaStdin.json.data.detached.input, "stdin");
  assertEquals(
    (await waitForExit(join(dir.path, viaStdin.json.data.detached.runDir))).outcome,
    "done",
  );
  const [prompt] = await fakeFiles(dir.path, sid, "prompt-");
  assertStringIncludes(await Deno.readTextFile(prompt), "Check every form field carefully.");
});

Deno.test("a small prompt reaches an argument-fed vendor as its message", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendors(dir.path, { opencode: "args" });
  const run = await dispatchDetached(dir.path, detachedEnv(bin), "txt", [
    "--vendor",
    "opencode",
    "--prompt",
    "Write the handoff",
  ]);
  assertEquals(run.result.json.data.detached.input, "argv");
  assertEquals((await waitForExit(run.runDir)).outcome, "done");
  const [args] = await fakeFiles(dir.path, sid, "args-");
  const text = await Deno.readTextFile(args);
  assert(text.startsWith("run\n--format\njson\n# Detached sub-agent: txt for "), text);
  assertStringIncludes(text, "Write the handoff");
});

Deno.test("detached-only flags without --mode detached are a usage error", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  for (const extra of [["--vendor", "codex"], ["--timeout", "5m"], ["--no-throttle"]]) {
    const result = await runPeaks(
      ["sub-agent", "dispatch", "rd", "--prompt", "x", ...extra, "--json"],
      { cwd: dir.path, env: { CLAUDECODE: "1" } },
    );
    assertEquals([result.code, result.json.code], [2, "CONFLICTING_FLAGS"]);
    assertEquals(result.json.data.flag, extra[0].slice(2));
  }
});
