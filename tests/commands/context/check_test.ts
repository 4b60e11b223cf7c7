import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks, type RunResult } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import { answer, deadPort, fakeHeadroomProxy, type Script } from "../../support/headroom_proxy.ts";
import { shellWords } from "../../support/next_actions.ts";

interface Fixture {
  root: string;
  env: Record<string, string>;
}

function check(fixture: Fixture, args: string[]): Promise<RunResult> {
  return runPeaks(
    [
      "context",
      "check",
      "--prompt-file",
      "prompt.md",
      "--project",
      fixture.root,
      ...args,
      "--json",
    ],
    { cwd: fixture.root, env: fixture.env },
  );
}

/** Runs a nextActions entry exactly as written (plus --json). */
function runAction(fixture: Fixture, action: string): Promise<RunResult> {
  const words = shellWords(action);
  assertEquals(words[0], "peaks");
  return runPeaks([...words.slice(1), "--json"], { cwd: fixture.root, env: fixture.env });
}

async function setup(root: string, prompt: string, env: Record<string, string> = {}) {
  await writeText(`${root}/prompt.md`, prompt);
  return { root, env } satisfies Fixture;
}

function codes(result: RunResult): string[] {
  return result.json.warnings.map((w: { code: string }) => w.code);
}

Deno.test("no proxy running: --use-headroom succeeds with HEADROOM_UNAVAILABLE", async () => {
  await using dir = await tempDir();
  const fixture = await setup(dir.path, "Summarise the open incidents.\n".repeat(100), {
    HEADROOM_BASE_URL: `http://127.0.0.1:${deadPort()}`,
  });
  const result = await check(fixture, ["--use-headroom", "--ide", "claude-code"]);
  assertEquals(result.code, 0, result.stderr);
  assertEquals(codes(result), ["HEADROOM_UNAVAILABLE"]);
  assertEquals(result.json.data.headroomCompressed, false);
  assertEquals(result.json.data.headroomResult.compressed, false);
  assertEquals(result.json.data.headroomResult.tokensBefore, null);
  assertMatch(result.json.warnings[0].reason, /nothing answered/);
  assertEquals(result.json.data.tier, "ok");
});

Deno.test("the SDK sends floor(bytes × k / 4) and the IDE's model for each mode", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy(answer.compressTo(500));
  const prompt = "List the failing integration tests and their owners.\n".repeat(300);
  const bytes = new TextEncoder().encode(prompt).length;
  const fixture = await setup(dir.path, prompt, { HEADROOM_BASE_URL: proxy.url });
  const runs: [string, string, number, string][] = [
    ["balanced", "claude-code", 0.4, "claude-sonnet-4-5-20250929"],
    ["aggressive", "claude-code", 0.2, "claude-sonnet-4-5-20250929"],
    ["conservative", "codex", 0.7, "gpt-4o"],
  ];
  for (const [mode, ide, k, model] of runs) {
    const result = await check(fixture, ["--use-headroom", "--headroom-mode", mode, "--ide", ide]);
    assertEquals(result.code, 0, result.stderr);
    const sent = proxy.requests.at(-1)!;
    assertEquals(sent.body.token_budget, Math.floor((bytes * k) / 4));
    assertEquals(sent.body.model, model);
    assertEquals(sent.body.messages, [{ role: "user", content: prompt }]);
    assertEquals(result.json.data.headroomResult.mode, mode);
    assertEquals(result.json.data.headroomResult.tokenBudget, sent.body.token_budget);
    assertEquals(result.json.data.promptSize, 500);
  }
  // Without --headroom-mode the project's preferred mode applies.
  await writeText(
    `${dir.path}/.peaks/preferences.json`,
    JSON.stringify({ schema_version: "2.0.0", headroom: { defaultMode: "aggressive" } }),
  );
  const preferred = await check(fixture, ["--use-headroom"]);
  assertEquals(preferred.json.data.headroomResult.mode, "aggressive");
  assertEquals(proxy.requests.at(-1)!.body.token_budget, Math.floor((bytes * 0.2) / 4));
});

Deno.test("85 % that compresses under 80 % passes without --force; measured numbers reported", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy(answer.compressTo(28_000));
  const fixture = await setup(dir.path, "b".repeat(34_000), { HEADROOM_BASE_URL: proxy.url });
  const result = await check(fixture, ["--context-window", "10000", "--use-headroom"]);
  assertEquals(result.code, 0, result.stderr);
  const data = result.json.data;
  assertEquals([data.originalPromptSize, data.promptSize], [34_000, 28_000]);
  assertEquals([data.percentBeforeCompression, data.percent, data.tier], [85, 70, "soft-warn"]);
  assertEquals([data.headroomCompressed, data.forcedAt], [true, null]);
  assertEquals(data.headroomResult, {
    mode: "balanced",
    tokenBudget: 3_400,
    model: "claude-sonnet-4-5-20250929",
    compressed: true,
    tokensBefore: 8_500,
    tokensAfter: 7_000,
    compressionRatio: 7_000 / 8_500,
    transformsApplied: ["router:text:truncate"],
    reason: null,
  });
  assertEquals(codes(result), ["IDE_ASSUMED", "CONTEXT_SOFT_WARN"]);
});

Deno.test("85 % that does not get under 80 % is refused with exit 3; its nextActions run", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy(answer.compressTo(33_000));
  const fixture = await setup(dir.path, "c".repeat(34_000), { HEADROOM_BASE_URL: proxy.url });
  const refused = await check(fixture, ["--context-window", "10000", "--use-headroom"]);
  assertEquals(refused.code, 3, refused.stderr);
  assertEquals(refused.json.code, "PROMPT_TOO_LARGE");
  assertEquals(refused.json.data.percent, 82.5);
  assertEquals(refused.json.data.headroomResult.compressed, true);
  assertEquals(refused.json.nextActions.length, 2);

  const [aggressive, forced] = refused.json.nextActions as string[];
  assertMatch(aggressive, /--headroom-mode aggressive/);
  const again = await runAction(fixture, aggressive);
  assertEquals([again.code, again.json.code], [3, "PROMPT_TOO_LARGE"]);
  assertEquals(proxy.requests.at(-1)!.body.token_budget, 1_700);

  const through = await runAction(fixture, forced);
  assertEquals(through.code, 0, through.stderr);
  assertMatch(through.json.data.forcedAt, /^\d{4}-\d\d-\d\dT/);
  assert(codes(through).includes("PROMPT_TOO_LARGE"));
});

Deno.test("without --use-headroom a refusal suggests it, and running the suggestion compresses", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy(answer.compressTo(20_000));
  const fixture = await setup(dir.path, "d".repeat(36_500), { HEADROOM_BASE_URL: proxy.url });
  const refused = await check(fixture, ["--context-window", "10000", "--ide", "cursor"]);
  assertEquals([refused.code, refused.json.code], [3, "PROMPT_EMERGENCY"]);
  assertEquals(proxy.requests.length, 0);
  const [useHeadroom, force] = refused.json.nextActions as string[];
  assertMatch(useHeadroom, /--use-headroom/);
  assertMatch(force, /--force/);
  const compressed = await runAction(fixture, useHeadroom);
  assertEquals(compressed.code, 0, compressed.stderr);
  assertEquals([compressed.json.data.tier, compressed.json.data.ide], ["soft-warn", "cursor"]);
  assertEquals(proxy.requests.length, 1);
  const forced = await runAction(fixture, force);
  assertEquals([forced.code, forced.json.data.tier], [0, "emergency"]);
  assert(codes(forced).includes("PROMPT_EMERGENCY"));
});

const failures: [string, Script, RegExp][] = [
  ["401", answer.status(401, { error: { type: "auth", message: "no" } }), /HTTP 401/],
  ["404", answer.status(404), /HTTP 404/],
  ["500", answer.status(500, { error: { type: "compression_error", message: "x" } }), /HTTP 500/],
  ["timeout", answer.hang(), /did not answer within 300 ms/],
  ["malformed body", answer.malformed(), /not valid JSON/],
  ["no reduction", answer.unchanged(), /no reduction/],
];

Deno.test("401, 404, 500, a timeout and a malformed body each give HEADROOM_UNAVAILABLE", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy();
  const fixture = await setup(dir.path, "e".repeat(2_000), {
    HEADROOM_BASE_URL: proxy.url,
    PEAKS_HEADROOM_TIMEOUT_MS: "300",
  });
  for (const [name, script, reason] of failures) {
    proxy.script = script;
    const result = await check(fixture, ["--use-headroom", "--ide", "claude-code"]);
    assertEquals(result.code, 0, `${name}: ${result.stderr}`);
    assertEquals(codes(result), ["HEADROOM_UNAVAILABLE"], name);
    assertMatch(result.json.warnings[0].reason, reason, name);
    assertEquals(result.json.data.headroomCompressed, false, name);
    assertEquals(result.json.data.promptSize, 2_000, name);
    assertEquals(result.stderr, "", name);
  }
});

Deno.test("a non-loopback base URL is refused by the binary's permissions (NotCapable)", async () => {
  await using dir = await tempDir();
  // 192.0.2.1 is a documentation address: nothing is sent even if permissions were wider.
  const fixture = await setup(dir.path, "f".repeat(2_000), {
    HEADROOM_BASE_URL: "http://192.0.2.1:8787",
  });
  const result = await check(fixture, ["--use-headroom", "--ide", "claude-code"]);
  assertEquals(result.code, 0, result.stderr);
  assertEquals(codes(result), ["HEADROOM_UNAVAILABLE"]);
  assertMatch(result.json.warnings[0].reason, /loopback.*192\.0\.2\.1:8787.*NotCapable/);
});

Deno.test("preferences: baseUrl is used without the env; enabled:false sends nothing", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy(answer.compressTo(100));
  const fixture = await setup(dir.path, "g".repeat(2_000));
  const prefs = (headroom: unknown) =>
    writeText(
      `${dir.path}/.peaks/preferences.json`,
      JSON.stringify({ schema_version: "2.0.0", headroom }),
    );
  await prefs({ baseUrl: proxy.url });
  const viaPrefs = await check(fixture, ["--use-headroom", "--ide", "claude-code"]);
  assertEquals([viaPrefs.code, viaPrefs.json.data.headroomCompressed], [0, true]);
  assertEquals(proxy.requests.length, 1);

  await prefs({ baseUrl: proxy.url, enabled: false });
  const disabled = await check(fixture, ["--use-headroom", "--ide", "claude-code"]);
  assertEquals(disabled.code, 0, disabled.stderr);
  assertEquals(codes(disabled), ["HEADROOM_DISABLED_BY_PREFERENCE"]);
  assertEquals([disabled.json.data.headroomResult, proxy.requests.length], [null, 1]);
});

Deno.test("without --use-headroom nothing is sent to the proxy", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy(answer.compressTo(100));
  const fixture = await setup(dir.path, "h".repeat(120_000), { HEADROOM_BASE_URL: proxy.url });
  const result = await check(fixture, ["--ide", "claude-code"]);
  assertEquals(result.code, 0, result.stderr);
  assertEquals([result.json.data.percent, result.json.data.tier], [15, "ok"]);
  assertEquals(result.json.data.headroomResult, null);
  assertEquals(proxy.requests.length, 0);
});

Deno.test("over 1 MiB is refused whatever the flags, before any compression", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy(answer.compressTo(100));
  const fixture = await setup(dir.path, "i".repeat(1024 * 1024 + 1), {
    HEADROOM_BASE_URL: proxy.url,
  });
  const result = await check(fixture, [
    "--use-headroom",
    "--force",
    "--context-window",
    "10000000",
  ]);
  assertEquals([result.code, result.json.code], [3, "PROMPT_OVER_HARD_LIMIT"]);
  assertEquals(result.json.data.promptBytes, 1024 * 1024 + 1);
  assertEquals(proxy.requests.length, 0);
  await writeText(`${dir.path}/prompt.md`, "i".repeat(1024 * 1024));
  const atLimit = await check(fixture, ["--context-window", "10000000"]);
  assertEquals(atLimit.code, 0, atLimit.stderr);
});

Deno.test("prompt files are guarded: outside the project is exit 2, missing is FILE_NOT_FOUND", async () => {
  await using dir = await tempDir();
  await using outside = await tempDir();
  await writeText(`${outside.path}/p.md`, "x");
  const fixture = await setup(dir.path, "x", {
    HEADROOM_BASE_URL: `http://127.0.0.1:${deadPort()}`,
  });
  const escaped = await runPeaks(
    ["context", "check", "--prompt-file", `${outside.path}/p.md`, "--project", dir.path, "--json"],
    { cwd: dir.path },
  );
  assertEquals([escaped.code, escaped.json.code], [2, "PATH_OUTSIDE_PROJECT"]);
  const missing = await runPeaks(
    ["context", "check", "--prompt-file", "nope.md", "--project", fixture.root, "--json"],
    { cwd: dir.path },
  );
  assertEquals([missing.code, missing.json.code], [2, "FILE_NOT_FOUND"]);
  const mode = await check(fixture, ["--headroom-mode", "aggressive"]);
  assertEquals([mode.code, mode.json.code], [2, "INVALID_FLAG_COMBINATION"]);
  const suggested = await runAction(fixture, mode.json.nextActions[0]);
  assertEquals(suggested.code, 0, suggested.stderr);
});
