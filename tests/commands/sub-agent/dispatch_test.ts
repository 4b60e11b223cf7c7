import { z } from "../../../lib/infra/zod.ts";
import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import { initWorkspace, readJson, recordPathOf } from "../../support/subagent.ts";
import { shellWords } from "../../support/next_actions.ts";
import { recordSchemas } from "../../../lib/state/record.ts";
import { join } from "../../../lib/infra/std.ts";

const { RecordFileSchema } = recordSchemas(z);

const MARKER = "SECRET-PROMPT-MARKER-7f3a";
const CLAUDE = { CLAUDECODE: "1" };

/** Stdout with toolCall.args.prompt removed: where the prompt must never appear. */
function outsidePrompt(stdout: string): string {
  const envelope = JSON.parse(stdout);
  if (envelope.data?.toolCall?.args) delete envelope.data.toolCall.args.prompt;
  return JSON.stringify(envelope);
}

Deno.test("dispatch writes a queued record and returns the Agent tool call, and nothing twice", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "rd-planning",
      "--request-id",
      "001-login",
      "--prompt",
      `Plan it. ${MARKER}`,
      "--brief",
      "inline",
      "--json",
    ],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(result.code, 0, result.stderr);
  const data = result.json.data;
  // No --batch-id: peaks chose one, and the caller needs it for status and converge.
  assertEquals(Object.keys(data).sort(), [
    "batchId",
    "envelopeVersion",
    "orchestratorVisibleHint",
    "record",
    "toolCall",
    "toolCallAliases",
  ]);
  assertEquals(data.envelopeVersion, "3.0.0");
  assertEquals(data.toolCall.name, "Agent");
  assertEquals(data.toolCallAliases, ["Task"]);
  assertEquals(data.toolCall.args.subagent_type, "general-purpose");
  assertEquals(data.toolCall.args.description, "rd-planning for rid=001-login");
  assert(data.toolCall.args.prompt.includes(MARKER));
  assertMatch(data.record, /^[0-9a-z]{8}-[0-9a-f]{4}$/);
  const path = recordPathOf(dir.path, data.record);
  assertMatch(
    path,
    new RegExp(
      `^\\.peaks/_sub_agents/${sid}/dispatch-001-login-rd-planning-${data.record}\\.json$`,
    ),
  );
  assertEquals(
    data.orchestratorVisibleHint,
    "⏳ Spawning sub-agent via Agent tool: rd-planning for rid=001-login (ETA ~45s)",
  );
  assert(!("prompt" in data));
  assert(
    !outsidePrompt(result.stdout).includes(MARKER),
    "the prompt leaked outside toolCall.args.prompt",
  );
  // The composed prompt once, and at most 1 KB besides.
  const promptBytes = new TextEncoder().encode(JSON.stringify(data.toolCall.args.prompt)).length;
  const bytes = new TextEncoder().encode(result.stdout).length;
  assert(bytes - promptBytes <= 1024, `${bytes - promptBytes} bytes besides the prompt`);
  assertEquals(result.json.warnings, []);
  assertEquals(result.json.nextActions, [], "the tool call is the next step");

  const record = RecordFileSchema.parse(await readJson(join(dir.path, path)));
  assertEquals(record.status, "queued");
  assertEquals(record.heartbeats, []);
  assertEquals(record.lastBeatAt, null);
  assertEquals(record.prompt, data.toolCall.args.prompt);
  assertEquals(record.gitHead, null);
  assertEquals(record.requestIdSource, "flag");
  assert(record.originalPromptSize > new TextEncoder().encode(`Plan it. ${MARKER}`).length);
  assertEquals(data.batchId, record.batchId);

  // A batch id the caller passed is not echoed back.
  const given = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "ui",
      "--request-id",
      "001-login",
      "--batch-id",
      "b1",
      "--prompt",
      "Draw it.",
      "--json",
    ],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(given.code, 0, given.stderr);
  assert(!("batchId" in given.json.data), given.stdout);
  const status = await runPeaks(
    ["sub-agent", "status", "--batch", data.batchId, "--json"],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(status.code, 0, status.stderr);
  assertEquals(status.stdout.includes(data.record), true, status.stdout);
});

Deno.test("pointer is the default brief: an envelope of at most 600 bytes with a warning attached", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  // No IDE in the environment: IDE_ASSUMED rides along.
  const result = await runPeaks(
    ["sub-agent", "dispatch", "rd", "--request-id", "001-login", "--prompt", "Hello", "--json"],
    { cwd: dir.path },
  );
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.warnings.map((w: { code: string }) => w.code), ["IDE_ASSUMED"]);
  const bytes = new TextEncoder().encode(result.stdout).length;
  assert(bytes <= 600, `${bytes} bytes: ${result.stdout}`);
  assertEquals(
    result.json.data.toolCall.args.prompt,
    `Run \`peaks sub-agent brief --record ${result.json.data.record}\` and follow it.`,
  );
  const data = JSON.stringify(result.json.data);
  assert(!data.includes("null") && !data.includes("[]") && !data.includes("{}"), data);
});

Deno.test("big prompts go through files: 600 KB dispatches, 5 MB is refused by the budget", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const large = `${MARKER}\n${"lorem ipsum dolor sit amet\n".repeat(23_000)}`;
  await writeText(join(dir.path, "task.md"), large);
  const file = await runPeaks(
    ["sub-agent", "dispatch", "qa", "--prompt-file", "task.md", "--brief", "pointer", "--json"],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(file.code, 0, file.stderr);
  assertEquals(file.json.warnings.map((w: { code: string }) => w.code), ["CONTEXT_NEAR_LIMIT"]);
  const record = await readJson(join(dir.path, recordPathOf(dir.path, file.json.data.record)));
  assert(record.originalPromptSize >= 590_000);
  assert(record.prompt.includes(large.trim().slice(-100)));

  const huge = `${MARKER}\n${"lorem ipsum dolor sit amet\n".repeat(200_000)}`;
  await writeText(join(dir.path, "huge.md"), huge);
  const before = [...Deno.readDirSync(join(dir.path, ".peaks", "_sub_agents"))].length;
  const refused = await runPeaks(
    ["sub-agent", "dispatch", "qa", "--prompt-file", "huge.md", "--force", "--json"],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(refused.code, 3, "never an argv failure: a clear budget refusal");
  assertEquals(refused.json.code, "PROMPT_OVER_HARD_LIMIT");
  assert(!refused.stdout.includes(MARKER), "the refusal does not echo the prompt");
  assertEquals([...Deno.readDirSync(join(dir.path, ".peaks", "_sub_agents"))].length, before);

  const piped = await runPeaks(
    ["sub-agent", "dispatch", "qa", "--prompt", "-", "--brief", "inline", "--json"],
    { cwd: dir.path, env: CLAUDE, stdin: `from stdin ${MARKER}` },
  );
  assertEquals(piped.code, 0, piped.stderr);
  assert(piped.json.data.toolCall.args.prompt.includes(`from stdin ${MARKER}`));
});

Deno.test("pointer mode: a 100 KB prompt gives an envelope under 1 KB and brief prints it", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  await writeText(join(dir.path, "p.md"), `${MARKER} ${"x".repeat(100 * 1024)}`);
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "rd",
      "--request-id",
      "001-login",
      "--prompt-file",
      "p.md",
      "--brief",
      "pointer",
      "--json",
    ],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(result.code, 0, result.stderr);
  assert(new TextEncoder().encode(result.stdout).length < 1024, `${result.stdout.length} bytes`);
  assert(!result.stdout.includes(MARKER));
  const pointer: string = result.json.data.toolCall.args.prompt;
  const command = /`(peaks sub-agent brief [^`]+)`/.exec(pointer)![1];
  const brief = await runPeaks(shellWords(command).slice(1), { cwd: join(dir.path, ".peaks") });
  assertEquals(brief.code, 0, brief.stderr);
  assert(brief.stdout.startsWith("## Runtime arguments"));
  assert(brief.stdout.includes(MARKER));
});

Deno.test("without --request-id the rid is adhoc-<batch prefix> and the record says it was generated", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "general-purpose",
      "--batch-id",
      "b-2026.x",
      "--prompt",
      "hi",
      "--json",
    ],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(result.code, 0, result.stderr);
  assertEquals(
    result.json.data.toolCall.args.description,
    "general-purpose for rid=adhoc-b-2026.x",
  );
  const record = await readJson(join(dir.path, recordPathOf(dir.path, result.json.data.record)));
  assertEquals(record.requestId, "adhoc-b-2026.x");
  assertEquals(record.requestIdSource, "generated");
});

Deno.test("roles are free-form; whitespace is refused and odd roles get a slug file name", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const bad = await runPeaks(["sub-agent", "dispatch", "rd planning", "--prompt", "x", "--json"], {
    cwd: dir.path,
    env: CLAUDE,
  });
  assertEquals(bad.code, 2);
  assertEquals(bad.json.code, "INVALID_ROLE");
  const odd = await runPeaks(["sub-agent", "dispatch", "设计/UI", "--prompt", "x", "--json"], {
    cwd: dir.path,
    env: CLAUDE,
  });
  assertEquals(odd.code, 0, odd.stderr);
  assertEquals(odd.json.data.toolCall.args.description.split(" for ")[0], "设计/UI");
  assertMatch(
    recordPathOf(dir.path, odd.json.data.record),
    /dispatch-adhoc-[^/]+-ui-[0-9a-f]{8}-[0-9a-z]{8}-[0-9a-f]{4}\.json$/,
  );
});

Deno.test("prompt input errors: none, two sources, empty", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const cases: Array<[string[], string]> = [
    [[], "MISSING_PROMPT"],
    [["--prompt", "a", "--prompt-file", "b"], "CONFLICTING_FLAGS"],
    [["--prompt", "   "], "EMPTY_PROMPT"],
    [["--prompt-file", "../outside.md"], "PATH_OUTSIDE_PROJECT"],
  ];
  for (const [flags, code] of cases) {
    const result = await runPeaks(["sub-agent", "dispatch", "rd", ...flags, "--json"], {
      cwd: dir.path,
      env: CLAUDE,
    });
    assertEquals([result.code, result.json.code], [2, code], flags.join(" "));
  }
});

Deno.test("the seventh member of a batch warns BATCH_OVER_LIMIT", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  let last;
  for (let i = 1; i <= 7; i++) {
    last = await runPeaks(
      ["sub-agent", "dispatch", `r${i}`, "--batch-id", "wide", "--prompt", "x", "--json"],
      { cwd: dir.path, env: CLAUDE },
    );
    const path = recordPathOf(dir.path, last.json.data.record);
    assertEquals((await readJson(join(dir.path, path))).dispatchedInBatch, i);
    assertEquals(
      last.json.warnings.some((w: { code: string }) => w.code === "BATCH_OVER_LIMIT"),
      i === 7,
    );
  }
});

Deno.test("--write-artifact declares conventional paths and refuses others", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const path = `.peaks/_sub_agents/${sid}/artifacts/001-login-ui-001.md`;
  await writeText(join(dir.path, path), "draft");
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "ui",
      "--request-id",
      "001-login",
      "--write-artifact",
      path,
      "--write-artifact",
      `.peaks/_runtime/${sid}/ui/design-draft.md`,
      "--prompt",
      "x",
      "--json",
    ],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.artifactsPublicPaths, [
    path,
    `.peaks/_runtime/${sid}/ui/design-draft.md`,
  ]);
  const record = await readJson(join(dir.path, recordPathOf(dir.path, result.json.data.record)));
  assertEquals(record.artifactMetas.length, 1);
  assertEquals(record.artifactMetas[0].size, 5);
  const bad = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "ui",
      "--request-id",
      "001-login",
      "--write-artifact",
      "notes.md",
      "--prompt",
      "x",
      "--json",
    ],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals([bad.code, bad.json.code], [2, "ARTIFACT_PATH_INVALID"]);
});
