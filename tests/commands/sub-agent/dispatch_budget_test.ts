import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import { initWorkspace, readJson, recordPathOf } from "../../support/subagent.ts";
import { runNextAction } from "../../support/next_actions.ts";
import { answer, deadPort, fakeHeadroomProxy } from "../../support/headroom_proxy.ts";
import { join } from "../../../lib/infra/std.ts";

const CLAUDE = { CLAUDECODE: "1" };
const MARKER = "BUDGET-PROMPT-MARKER-91c2";

function codes(warnings: Array<{ code: string }>): string[] {
  return warnings.map((w) => w.code);
}

Deno.test("dispatch refuses a prompt over 80% of the window; its --force re-run records forcedAt", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const prompt = `${MARKER} ${"Describe every endpoint in detail. ".repeat(400)}`;
  const refused = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "rd",
      "--request-id",
      "r1",
      "--context-window",
      "4000",
      "--prompt",
      prompt,
      "--brief",
      "inline",
      "--json",
    ],
    { cwd: dir.path, env: CLAUDE },
  );
  assertEquals(refused.code, 3, refused.stdout);
  assert(["PROMPT_TOO_LARGE", "PROMPT_EMERGENCY"].includes(refused.json.code));
  assert(
    !refused.stdout.includes(MARKER),
    "neither the message nor the re-run commands carry the prompt",
  );
  assertEquals(
    [...Deno.readDirSync(join(dir.path, ".peaks/_sub_agents", sid))].map((e) => e.name),
    [
      "prompts",
    ],
  );
  const force = refused.json.nextActions.find((a: string) => a.includes(" --force"));
  assert(force, refused.json.nextActions.join("\n"));
  assert(refused.json.nextActions.some((a: string) => a.includes("--use-headroom")));
  const forced = await runNextAction(force, { cwd: dir.path, env: CLAUDE });
  assertEquals(forced.code, 0, forced.stdout);
  assertMatch(forced.json.data.forcedAt, /^\d{4}-/);
  assert(codes(forced.json.warnings).includes(refused.json.code));
  assert(
    forced.json.data.toolCall.args.prompt.includes(MARKER),
    "the saved prompt is the one dispatched",
  );
  const record = await readJson(join(dir.path, recordPathOf(dir.path, forced.json.data.record)));
  assertEquals(record.forcedAt, forced.json.data.forcedAt);
});

Deno.test("dispatch --use-headroom with no proxy: HEADROOM_UNAVAILABLE and an uncompressed dispatch", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "qa",
      "--use-headroom",
      "--prompt",
      `Check it. ${MARKER}`,
      "--brief",
      "inline",
      "--json",
    ],
    { cwd: dir.path, env: { ...CLAUDE, HEADROOM_BASE_URL: `http://127.0.0.1:${deadPort()}` } },
  );
  assertEquals(result.code, 0, result.stdout);
  assertEquals(codes(result.json.warnings), ["HEADROOM_UNAVAILABLE"]);
  assert(!("headroomResult" in result.json.data), "nothing was compressed");
  assert(result.json.data.toolCall.args.prompt.includes(MARKER));
});

Deno.test("dispatch compresses only the caller's prompt; the generated blocks and record path stay intact", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  await using proxy = fakeHeadroomProxy(answer.compressTo(2_000));
  const body = `${MARKER} ${"The payment flow must retry twice before failing. ".repeat(200)}`;
  await writeText(join(dir.path, "task.md"), body);
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "rd",
      "--request-id",
      "r2",
      "--use-headroom",
      "--prompt-file",
      "task.md",
      "--brief",
      "inline",
      "--json",
    ],
    { cwd: dir.path, env: { ...CLAUDE, HEADROOM_BASE_URL: proxy.url } },
  );
  assertEquals(result.code, 0, result.stdout);
  const data = result.json.data;
  const path = recordPathOf(dir.path, data.record);
  const record = await readJson(join(dir.path, path));
  assert(data.headroomResult, "the envelope says the prompt was compressed");
  assert(record.promptSize < record.originalPromptSize);
  assertEquals(proxy.promptOf(0), body.trim(), "the proxy saw the caller's prompt only");
  const prompt: string = data.toolCall.args.prompt;
  assert(
    prompt.includes(path),
    "heartbeat and completion blocks name the record",
  );
  assertMatch(prompt, /## Commit \/ push policy \(mandatory\)/);
  assert(!("ccrHashes" in data.headroomResult), "CCR hashes stay out of the envelope");
  assertEquals((record.headroomResult as { ccrHashes: string[] }).ccrHashes, ["ccr0a1b2c3"]);
  assertEquals(record.prompt, prompt);
});
