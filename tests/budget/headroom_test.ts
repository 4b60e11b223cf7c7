import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import {
  type CompressionRequest,
  compressPrompt,
  describeFailure,
  headroomSettings,
} from "../../lib/budget/_headroom.ts";
import { governPrompt, type GovernRequest } from "../../lib/budget/governance.ts";
import { ideById } from "../../lib/hosts/registry.ts";
import { projectLayout } from "../../lib/workspace/paths.ts";
import type { Project } from "../../lib/workspace/project.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import { answer, deadPort, fakeHeadroomProxy } from "../support/headroom_proxy.ts";
import { tempDir, writeText } from "../support/temp.ts";

const PROMPT = "Review the payment module and list every unchecked error path. ".repeat(40);
const BYTES = new TextEncoder().encode(PROMPT).length;

function request(url: string, extra: Partial<CompressionRequest> = {}): CompressionRequest {
  return {
    prompt: PROMPT,
    mode: "balanced",
    baseUrl: url,
    timeoutMs: 2_000,
    model: "claude-sonnet-4-5-20250929",
    ...extra,
  };
}

Deno.test("a compressed answer replaces the prompt and reports the proxy's own numbers", async () => {
  await using proxy = fakeHeadroomProxy(answer.compressTo(1_000));
  const outcome = await compressPrompt(request(proxy.url));
  assertEquals(outcome.warning, null);
  assertEquals(outcome.prompt, PROMPT.slice(0, 1_000));
  const before = Math.ceil(BYTES / 4);
  assertEquals(outcome.result, {
    mode: "balanced",
    tokenBudget: Math.floor((BYTES * 0.4) / 4),
    model: "claude-sonnet-4-5-20250929",
    compressed: true,
    tokensBefore: before,
    tokensAfter: 250,
    compressionRatio: 250 / before,
    transformsApplied: ["router:text:truncate"],
    ccrHashes: ["ccr0a1b2c3"],
    reason: null,
  });
  assertEquals(proxy.requests.length, 1);
  const sent = proxy.requests[0];
  assertEquals(sent.path, "/v1/compress");
  assertEquals(sent.body.model, "claude-sonnet-4-5-20250929");
  assertEquals(sent.body.token_budget, Math.floor((BYTES * 0.4) / 4));
  assertEquals(sent.body.messages, [{ role: "user", content: PROMPT }]);
  assertEquals(sent.headers.authorization, undefined);
});

Deno.test("each mode sends floor(bytes × k / 4) as the token budget", async () => {
  await using proxy = fakeHeadroomProxy(answer.compressTo(100));
  for (const mode of ["balanced", "aggressive", "conservative"] as const) {
    await compressPrompt(request(proxy.url, { mode }));
  }
  assertEquals(proxy.requests.map((r) => r.body.token_budget), [
    Math.floor((BYTES * 0.4) / 4),
    Math.floor((BYTES * 0.2) / 4),
    Math.floor((BYTES * 0.7) / 4),
  ]);
});

const failures: [string, () => ReturnType<typeof answer.status>, RegExp, number][] = [
  ["401", () => answer.status(401, { error: { type: "auth", message: "bad key" } }), /HTTP 401/, 1],
  ["404", () => answer.status(404), /HTTP 404.*not on loopback/, 1],
  ["500 (retried once)", () => answer.status(500, { error: { message: "boom" } }), /HTTP 500/, 2],
  ["malformed JSON", answer.malformed, /not valid JSON/, 2],
  ["no reduction", answer.unchanged, /no reduction/, 1],
  ["non-string content", answer.nonStringContent, /one non-empty text message/, 1],
];

for (const [name, script, reason, calls] of failures) {
  Deno.test(`${name}: HEADROOM_UNAVAILABLE, the original prompt goes on`, async () => {
    await using proxy = fakeHeadroomProxy(script());
    const outcome = await compressPrompt(request(proxy.url));
    assertEquals(outcome.prompt, PROMPT);
    assertEquals(outcome.warning?.code, "HEADROOM_UNAVAILABLE");
    assertMatch(String(outcome.warning?.reason), reason);
    assertEquals(outcome.result.compressed, false);
    assertEquals(outcome.result.reason, outcome.warning?.reason);
    assertEquals(proxy.requests.length, calls);
  });
}

Deno.test("an answer without reduction still reports the numbers the proxy sent", async () => {
  await using proxy = fakeHeadroomProxy(answer.unchanged());
  const outcome = await compressPrompt(request(proxy.url));
  assertEquals(outcome.result.tokensBefore, 0);
  assertEquals(outcome.result.compressionRatio, 1);
});

Deno.test("a proxy that never answers times out into HEADROOM_UNAVAILABLE", async () => {
  await using proxy = fakeHeadroomProxy(answer.hang());
  const outcome = await compressPrompt(request(proxy.url, { timeoutMs: 150 }));
  assertMatch(String(outcome.warning?.reason), /did not answer within 150 ms/);
  assertEquals(outcome.prompt, PROMPT);
  assertEquals(proxy.requests.length, 2);
});

Deno.test("a dead port is HEADROOM_UNAVAILABLE naming the URL", async () => {
  const port = deadPort();
  const outcome = await compressPrompt(request(`http://127.0.0.1:${port}`));
  assertMatch(String(outcome.warning?.reason), new RegExp(`nothing answered at .*:${port}`));
});

Deno.test("an SDK that cannot be loaded is HEADROOM_UNAVAILABLE, nothing is sent", async () => {
  await using proxy = fakeHeadroomProxy(answer.compressTo(10));
  const outcome = await compressPrompt(
    request(proxy.url, {
      load: () => Promise.reject(new TypeError('Cannot find module "headroom-ai"')),
    }),
  );
  assertMatch(String(outcome.warning?.reason), /headroom-ai SDK could not be loaded/);
  assertEquals(proxy.requests.length, 0);
});

Deno.test("a base URL that is not http(s) is refused before any call", async () => {
  for (const url of ["not a url", "ftp://127.0.0.1/"]) {
    const outcome = await compressPrompt(
      request(url, { load: () => Promise.reject(new Error("must not load")) }),
    );
    assertMatch(String(outcome.warning?.reason), /base URL/);
  }
});

Deno.test("a permission refusal reads as loopback-only (NotCapable)", () => {
  const error = new Error(
    'Failed to connect to Headroom at http://192.0.2.1:8787: NotCapable: Requires net access to "192.0.2.1:8787"',
  );
  assertMatch(describeFailure(error, "http://192.0.2.1:8787", 100), /loopback.*NotCapable/);
});

Deno.test("settings: env URL over preference over default; flag mode over preference", () => {
  const env = (vars: Record<string, string>) => ({ get: (name: string) => vars[name] });
  const prefs = { baseUrl: "http://127.0.0.1:9999", defaultMode: "conservative" as const };
  assertEquals(headroomSettings(env({}), undefined, undefined), {
    enabled: true,
    mode: "balanced",
    modeSource: "default",
    baseUrl: "http://localhost:8787",
    baseUrlSource: "default",
    timeoutMs: 5_000,
  });
  const fromPrefs = headroomSettings(env({}), prefs, undefined);
  assertEquals([fromPrefs.baseUrl, fromPrefs.mode], ["http://127.0.0.1:9999", "conservative"]);
  const fromEnv = headroomSettings(
    env({ HEADROOM_BASE_URL: "http://[::1]:1234", PEAKS_HEADROOM_TIMEOUT_MS: "250" }),
    prefs,
    "aggressive",
  );
  assertEquals(
    [fromEnv.baseUrl, fromEnv.baseUrlSource, fromEnv.mode, fromEnv.timeoutMs],
    ["http://[::1]:1234", "env", "aggressive", 250],
  );
  assertEquals(
    headroomSettings(env({ PEAKS_HEADROOM_TIMEOUT_MS: "x" }), {}, undefined).timeoutMs,
    5_000,
  );
  assertEquals(headroomSettings(env({}), { enabled: false }, undefined).enabled, false);
});

async function project(root: string, preferences?: unknown): Promise<Project> {
  if (preferences) {
    await writeText(`${root}/.peaks/preferences.json`, JSON.stringify(preferences));
  }
  return { root, layout: projectLayout(root), source: "flag" };
}

function govern(extra: Partial<GovernRequest> & Pick<GovernRequest, "project" | "prompt">) {
  return governPrompt({
    ide: ideById("claude-code")!,
    contextWindow: 10_000,
    force: false,
    useHeadroom: true,
    env: { get: () => undefined },
    now: new Date("2026-11-29T12:00:00.000Z"),
    rerun: (change) => `peaks context check ${JSON.stringify(change)}`,
    ...extra,
  });
}

Deno.test("the budget is judged after compression: 85 % that compresses under 80 % passes", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy(answer.compressTo(30_000));
  const prompt = "a".repeat(34_000); // 8 500 tokens: 85 % of 10 000
  const outcome = await govern({
    prompt,
    project: await project(dir.path, {
      schema_version: "2.0.0",
      headroom: { baseUrl: proxy.url },
    }),
  });
  assertEquals(outcome.headroomCompressed, true);
  assertEquals(outcome.promptSize, 30_000);
  assertEquals(outcome.budget.tier, "near-limit");
  assertEquals(outcome.budgetBeforeCompression?.percent, 85);
  assertEquals(outcome.forcedAt, null);
  assertEquals(outcome.warnings.map((w) => w.code), ["CONTEXT_NEAR_LIMIT"]);
  assertEquals(outcome.headroomRecord?.ccrHashes, ["ccr0a1b2c3"]);
  assert(!("ccrHashes" in (outcome.headroomResult ?? {})));
});

Deno.test("a prompt that stays at or above 80 % after compression is refused with exit 3", async () => {
  await using dir = await tempDir();
  await using proxy = fakeHeadroomProxy(answer.compressTo(33_000));
  const error = await assertRejects(
    () =>
      govern({
        prompt: "a".repeat(34_000),
        project: { root: dir.path, layout: projectLayout(dir.path), source: "flag" },
        env: { get: (name) => (name === "HEADROOM_BASE_URL" ? proxy.url : undefined) },
      }),
    PeaksError,
  );
  assertEquals([error.code, error.exit], ["PROMPT_TOO_LARGE", 3]);
  assertEquals(error.data.headroomCompressed, true);
  assertEquals(error.data.promptSize, 33_000);
  assertEquals(error.nextActions, [
    'peaks context check {"headroomMode":"aggressive"}',
    'peaks context check {"force":true}',
  ]);
});

Deno.test("--force lets an emergency prompt through and records forcedAt", async () => {
  await using dir = await tempDir();
  const outcome = await govern({
    prompt: "a".repeat(38_000),
    useHeadroom: false,
    force: true,
    project: await project(dir.path),
  });
  assertEquals(outcome.budget.tier, "emergency");
  assertEquals(outcome.forcedAt, "2026-11-29T12:00:00.000Z");
  assertEquals(outcome.warnings[0].code, "PROMPT_EMERGENCY");
  assertEquals(outcome.warnings[0].forced, true);
});

Deno.test("headroom.enabled:false turns --use-headroom into a warning and loads nothing", async () => {
  await using dir = await tempDir();
  let loaded = false;
  const outcome = await govern({
    prompt: "short prompt",
    project: await project(dir.path, { schema_version: "2.0.0", headroom: { enabled: false } }),
    loadSdk: () => {
      loaded = true;
      return Promise.reject(new Error("must not load"));
    },
  });
  assertEquals(outcome.warnings.map((w) => w.code), ["HEADROOM_DISABLED_BY_PREFERENCE"]);
  assertEquals([outcome.headroomResult, outcome.headroomCompressed, loaded], [null, false, false]);
});

Deno.test("--headroom-mode without --use-headroom is a usage error", async () => {
  await using dir = await tempDir();
  const root = await project(dir.path);
  const error = await assertRejects(
    () => govern({ prompt: "x", useHeadroom: false, headroomMode: "aggressive", project: root }),
    PeaksError,
  );
  assertEquals([error.code, error.exit], ["INVALID_FLAG_COMBINATION", 2]);
});

Deno.test("a broken preferences file skips headroom with a warning instead of blocking", async () => {
  await using dir = await tempDir();
  await writeText(`${dir.path}/.peaks/preferences.json`, "{ not json");
  const outcome = await govern({
    prompt: "short prompt",
    project: await project(dir.path),
    loadSdk: () => Promise.reject(new Error("must not load")),
  });
  assertEquals(outcome.warnings.map((w) => w.code), ["HEADROOM_UNAVAILABLE"]);
  assertMatch(String(outcome.warnings[0].reason), /preferences file is unreadable/);
  assertEquals(outcome.prompt, "short prompt");
});
