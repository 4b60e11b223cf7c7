import { assert, assertEquals, assertThrows } from "@std/assert";
import {
  estimateTokens,
  evaluateBudget,
  isRefusingTier,
  PROMPT_HARD_LIMIT_BYTES,
  tierFor,
  tokenBudgetFor,
  utf8Bytes,
} from "../../lib/budget/budget.ts";
import { assertUnderHardLimit } from "../../lib/budget/governance.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import { IDES } from "../../lib/hosts/registry.ts";

Deno.test("tokens are UTF-8 bytes / 4, rounded up", () => {
  assertEquals(estimateTokens(0), 0);
  assertEquals(estimateTokens(1), 1);
  assertEquals(estimateTokens(4), 1);
  assertEquals(estimateTokens(5), 2);
  assertEquals(utf8Bytes("é"), 2);
  assertEquals(utf8Bytes("日本"), 6);
  assertEquals(evaluateBudget(utf8Bytes("日本語"), 1000).estimatedTokens, 3);
});

Deno.test("each tier starts exactly at its threshold", () => {
  const window = 10_000;
  const cases: [number, string, string | null][] = [
    [4_999, "ok", null],
    [5_000, "soft-warn", "CONTEXT_SOFT_WARN"],
    [7_499, "soft-warn", "CONTEXT_SOFT_WARN"],
    [7_500, "near-limit", "CONTEXT_NEAR_LIMIT"],
    [7_999, "near-limit", "CONTEXT_NEAR_LIMIT"],
    [8_000, "too-large", "PROMPT_TOO_LARGE"],
    [8_999, "too-large", "PROMPT_TOO_LARGE"],
    [9_000, "emergency", "PROMPT_EMERGENCY"],
    [25_000, "emergency", "PROMPT_EMERGENCY"],
  ];
  for (const [tokens, tier, code] of cases) {
    const verdict = evaluateBudget(tokens * 4, window);
    assertEquals([tokens, verdict.tier, verdict.code], [tokens, tier, code]);
  }
  // One byte more than 4 × 4 999 tokens rounds up to 5 000: soft-warn.
  assertEquals(evaluateBudget(4_999 * 4 + 1, window).tier, "soft-warn");
  assertEquals(evaluateBudget(8_500 * 4, window).percent, 85);
});

Deno.test("thresholds hold for windows that do not divide evenly", () => {
  // 50 % of 200 001 tokens is 100 000.5: 100 000 tokens is still ok.
  assertEquals(tierFor(100_000, 200_001), "ok");
  assertEquals(tierFor(100_001, 200_001), "soft-warn");
});

Deno.test("only too-large and emergency refuse", () => {
  assertEquals(
    (["ok", "soft-warn", "near-limit", "too-large", "emergency"] as const).map(isRefusingTier),
    [false, false, false, true, true],
  );
});

Deno.test("tokenBudget = floor(bytes × k / 4) for each mode", () => {
  for (const bytes of [1_000, 34_001, 123_457, 999_999]) {
    assertEquals(tokenBudgetFor("balanced", bytes), Math.floor((bytes * 40) / 400));
    assertEquals(tokenBudgetFor("aggressive", bytes), Math.floor((bytes * 20) / 400));
    assertEquals(tokenBudgetFor("conservative", bytes), Math.floor((bytes * 70) / 400));
  }
  assertEquals(tokenBudgetFor("balanced", 40_000), 4_000);
  assertEquals(tokenBudgetFor("aggressive", 40_000), 2_000);
  assertEquals(tokenBudgetFor("conservative", 40_000), 7_000);
  // A budget of 0 would be dropped by the SDK; the smallest budget is 1.
  assertEquals(tokenBudgetFor("aggressive", 3), 1);
});

Deno.test("the 1 MiB limit allows exactly 1 MiB and refuses one byte more with exit 3", () => {
  assertUnderHardLimit(PROMPT_HARD_LIMIT_BYTES);
  const error = assertThrows(() => assertUnderHardLimit(PROMPT_HARD_LIMIT_BYTES + 1), PeaksError);
  assertEquals(error.code, "PROMPT_OVER_HARD_LIMIT");
  assertEquals(error.exit, 3);
});

Deno.test("every IDE has a positive default window; claude-code's is 200 000", () => {
  for (const ide of IDES) assert(Number.isInteger(ide.contextWindow) && ide.contextWindow > 0);
  assertEquals(IDES.find((ide) => ide.id === "claude-code")?.contextWindow, 200_000);
  assertThrows(() => evaluateBudget(10, 0), RangeError);
});
