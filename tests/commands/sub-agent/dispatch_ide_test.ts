import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import { initWorkspace, readJson, recordPathOf } from "../../support/subagent.ts";
import { runNextAction, shellWords } from "../../support/next_actions.ts";
import { join } from "../../../lib/infra/std.ts";
import { waitForExit } from "../../support/detached.ts";

const MARKER = "SECRET-PROMPT-MARKER-7f3a";
const CLAUDE = { CLAUDECODE: "1" };

Deno.test("IDE detection: env names the IDE, none means claude-code with IDE_ASSUMED", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const ideOf = async (result: { json: { data: { record: string } } }) =>
    (await readJson(join(dir.path, recordPathOf(dir.path, result.json.data.record)))).ide;
  const assumed = await runPeaks(["sub-agent", "dispatch", "rd", "--prompt", "x", "--json"], {
    cwd: dir.path,
  });
  assertEquals(await ideOf(assumed), "claude-code");
  assertEquals(assumed.json.warnings.map((w: { code: string }) => w.code), ["IDE_ASSUMED"]);

  // Trae sets TRAE_AI; no sub-agent tool is known for it, so it gets IDE_NOT_SUPPORTED.
  const trae = await runPeaks(["sub-agent", "dispatch", "qa", "--prompt", "x", "--json"], {
    cwd: dir.path,
    env: { TRAE_AI: "1" },
  });
  assertEquals([trae.code, trae.json.code, trae.json.data.ide], [3, "IDE_NOT_SUPPORTED", "trae"]);

  const qwen = await runPeaks(
    ["sub-agent", "dispatch", "qa", "--prompt", "x", "--brief", "inline", "--json"],
    { cwd: dir.path, env: { QWEN_CODE: "1" } },
  );
  assertEquals(await ideOf(qwen), "qwen");
  assertEquals(qwen.json.data.toolCall.name, "agent");
  assert(!("toolCallAliases" in qwen.json.data));
  assert(qwen.json.data.toolCall.args.prompt.includes("## MCP tool check (IDE: qwen)"));

  await Deno.mkdir(join(dir.path, ".cursor"));
  const cursor = await runPeaks(["sub-agent", "dispatch", "qa", "--prompt", "x", "--json"], {
    cwd: dir.path,
  });
  assertEquals([cursor.code, cursor.json.data.ide], [3, "cursor"]);
});

/** The tool call each host gets, without its prompt. */
const OWN_TOOLS: Record<string, [string, Record<string, unknown>, boolean]> = {
  "claude-code": [
    "Agent",
    { subagent_type: "general-purpose", description: "rd for rid=r1" },
    true,
  ],
  codex: ["spawn_agent", {}, true],
  gemini: ["invoke_agent", { agent_name: "generalist" }, true],
  opencode: ["task", { description: "rd for rid=r1", subagent_type: "general" }, true],
  copilot: [
    "task",
    { description: "rd for rid=r1", agent_type: "general-purpose", name: "rd", mode: "sync" },
    true,
  ],
  qwen: [
    "agent",
    { description: "rd for rid=r1", subagent_type: "general-purpose", run_in_background: false },
    true,
  ],
  hermes: ["delegate_task", { context: "rd for rid=r1" }, false],
  openclaw: ["sessions_spawn", { label: "rd" }, false],
};

Deno.test("each host gets its own sub-agent tool; none but Claude Code gets Agent or Task", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  for (const [ide, [name, args, verified]] of Object.entries(OWN_TOOLS)) {
    const result = await runPeaks(
      [
        "sub-agent",
        "dispatch",
        "rd",
        "--ide",
        ide,
        "--request-id",
        "r1",
        // One batch per host: a second live rd of r1 outside a named batch is refused.
        "--batch-id",
        `b-${ide}`,
        "--prompt",
        "x",
        "--json",
      ],
      { cwd: dir.path },
    );
    assertEquals(result.code, 0, `${ide}: ${result.stdout}`);
    const call = result.json.data.toolCall;
    assertEquals(call.name, name, ide);
    const { prompt: _p, message: _m, goal: _g, task: _t, ...rest } = call.args;
    assertEquals(rest, args, ide);
    assertMatch(String(_p ?? _m ?? _g ?? _t), /peaks sub-agent brief --record/);
    assertEquals(call.verified === undefined, verified, ide);
    if (!verified) assertMatch(call.source, /^https:\/\//);
  }
  for (const ide of ["cursor", "trae", "qoder", "lingma", "zcode"]) {
    const result = await runPeaks([
      "sub-agent",
      "dispatch",
      "rd",
      "--ide",
      ide,
      "--prompt",
      "x",
      "--json",
    ], {
      cwd: dir.path,
    });
    assertEquals([result.code, result.json.code], [3, "IDE_NOT_SUPPORTED"], ide);
  }
});

async function fakeVendor(dir: string, name: string): Promise<string> {
  const bin = join(dir, "bin");
  await writeText(join(bin, name), "#!/bin/sh\nexit 0\n");
  await Deno.chmod(join(bin, name), 0o755);
  return bin;
}

Deno.test("IDE_NOT_SUPPORTED: exit 3, a detached replay with the installed vendor, the prompt saved", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const bin = await fakeVendor(dir.path, "gemini");
  const env = { PATH: `${bin}:${Deno.env.get("PATH")}` };
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "rd",
      "--ide",
      "cursor",
      "--request-id",
      "001-login",
      "--prompt",
      "-",
      "--json",
    ],
    { cwd: dir.path, env, stdin: `piped ${MARKER}` },
  );
  assertEquals(result.code, 3);
  assertEquals(result.json.code, "IDE_NOT_SUPPORTED");
  assertEquals(result.json.data.vendor, "gemini");
  assert(!result.stdout.includes(MARKER));
  const promptFile: string = result.json.data.promptFile;
  assertMatch(promptFile, new RegExp(`^\\.peaks/_sub_agents/${sid}/prompts/001-login-rd-`));
  assertEquals(await Deno.readTextFile(join(dir.path, promptFile)), `piped ${MARKER}`);
  assertEquals(result.json.nextActions.length, 1);
  const action: string = result.json.nextActions[0];
  assertMatch(action, /--mode detached --vendor gemini --project /);
  assertMatch(result.json.data.instructions.join(" "), /inline/);

  // The replay really runs detached: a supervisor starts the fake gemini with the saved prompt.
  const replay = await runNextAction(action, { cwd: dir.path, env });
  assertEquals(replay.code, 0, replay.stdout);
  assertEquals([replay.json.data.mode, replay.json.data.vendor], ["detached", "gemini"]);
  const exit = await waitForExit(join(dir.path, replay.json.data.detached.runDir));
  assertEquals(exit.outcome, "done");
  const detached = await readJson(join(dir.path, replay.json.data.dispatchRecordPath));
  assertEquals([detached.mode, detached.vendor, detached.status], ["detached", "gemini", "done"]);
  // The in-process replay of the same call carries the saved prompt (inline, to look at it).
  assert(detached.prompt.includes(`piped ${MARKER}`));
  const words = shellWords(action);
  const mode = words.indexOf("--mode");
  words.splice(mode, 4, "--ide", "claude-code");
  const inProcess = await runPeaks([...words.slice(1), "--brief", "inline", "--json"], {
    cwd: dir.path,
    env,
  });
  assertEquals(inProcess.code, 0, inProcess.stderr);
  assert(inProcess.json.data.toolCall.args.prompt.includes(`piped ${MARKER}`));
});

Deno.test("IDE_NOT_SUPPORTED without an installed vendor: no replay, inline advice", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const result = await runPeaks(["sub-agent", "dispatch", "rd", "--prompt", "x", "--json"], {
    cwd: dir.path,
    env: { TRAE_AI: "1", PATH: join(dir.path, "empty-bin") },
  });
  assertEquals(result.code, 3);
  assertEquals(result.json.data.ide, "trae");
  assertEquals(result.json.nextActions, []);
  assertEquals(result.json.data.installedVendors, []);
});

Deno.test("a git project records gitHead and branch", async () => {
  await using dir = await tempDir();
  const git = (...args: string[]) =>
    new Deno.Command("git", {
      args: ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
      cwd: dir.path,
      stdout: "null",
      stderr: "null",
    }).output();
  await git("init", "-q", "-b", "main");
  await git("commit", "-q", "--allow-empty", "-m", "base");
  await initWorkspace(dir.path);
  const result = await runPeaks(["sub-agent", "dispatch", "rd", "--prompt", "x", "--json"], {
    cwd: dir.path,
    env: CLAUDE,
  });
  const record = await readJson(join(dir.path, recordPathOf(dir.path, result.json.data.record)));
  assertMatch(record.gitHead!, /^[0-9a-f]{40}$/);
  assertEquals(record.gitBranch, "main");
});

Deno.test("runtime arguments come from presence, the PRD request and the swarm plan", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await runPeaks(["skill", "presence:set", "peaks-code", "--mode", "assisted"], { cwd: dir.path });
  const runtime = join(dir.path, ".peaks", "_runtime", sid);
  await writeText(
    join(runtime, "prd", "requests", "001-login.md"),
    "---\nrid: 001-login\nrole: prd\ntype: bugfix\nstate: draft\ncreatedAt: 2026-11-29T00:00:00Z\nupdatedAt: 2026-11-29T00:00:00Z\n---\n# PRD\n",
  );
  await writeText(
    join(runtime, "sc", "swarm-plan-001-login.json"),
    JSON.stringify({ rid: "001-login", frontendOnly: true, frontendKeywordHit: false }),
  );
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "ui",
      "--request-id",
      "001-login",
      "--prompt",
      "x",
      "--brief",
      "inline",
      "--json",
    ],
    { cwd: dir.path, env: CLAUDE },
  );
  const prompt: string = result.json.data.toolCall.args.prompt;
  assert(prompt.includes("- Mode: assisted"));
  assert(prompt.includes("- Request type: bugfix"));
  assert(prompt.includes("- frontendOnly: true; frontendKeywordHit: false"));
  assert(prompt.includes(`.peaks/_runtime/${sid}/system/sub-agent-ui.json`));
});

Deno.test("Codex gets its spawn_agent call (namespace multi_agent_v1, the prompt as message)", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const inline = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--prompt", `do it ${MARKER}`, "--brief", "inline", "--json"],
    { cwd: dir.path, env: { CODEX_SANDBOX: "seatbelt" } },
  );
  assertEquals(inline.code, 0, inline.stdout);
  const data = inline.json.data;
  const path = recordPathOf(dir.path, data.record);
  assertEquals([data.toolCall.name, data.toolCall.namespace], ["spawn_agent", "multi_agent_v1"]);
  assertEquals(Object.keys(data.toolCall.args), ["message"]);
  assert(data.toolCall.args.message.includes(MARKER));
  assert(!("verified" in data.toolCall));
  assertMatch(data.orchestratorVisibleHint, /^⏳ Spawning sub-agent via spawn_agent tool: rd /);
  assertMatch(data.instructions.join(" "), /wait_agent/);
  // The record keeps the prompt once: not again inside its stored tool call.
  const record = await readJson(join(dir.path, path));
  assertEquals(record.ide, "codex");
  assert(record.toolCall?.args.message === undefined, JSON.stringify(record.toolCall));

  const pointer = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "rd",
      "--prompt",
      "x",
      "--ide",
      "codex",
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals(pointer.code, 0, pointer.stdout);
  assertMatch(pointer.json.data.toolCall.args.message, /^Run `peaks sub-agent brief --record /);
});
