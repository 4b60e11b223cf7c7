/**
 * The G9 prompt budget: a token estimate from UTF-8 bytes, the share of the
 * sub-agent's context window it takes, and the tier that share falls in.
 * Pure functions; no I/O, no heavy imports.
 */

import type { ErrorCode } from "../infra/error_codes.ts";

/** A prompt above this many UTF-8 bytes is refused whatever the flags. */
export const PROMPT_HARD_LIMIT_BYTES = 1024 * 1024;

/** Tier thresholds in percent of the context window (lower bound, inclusive). */
export const THRESHOLDS = {
  softWarn: 50,
  nearLimit: 75,
  tooLarge: 80,
  emergency: 90,
} as const;

export type Tier = "ok" | "soft-warn" | "near-limit" | "too-large" | "emergency";

/** The envelope code of each tier (null for ok). */
export const TIER_CODES: Record<Tier, ErrorCode | null> = {
  ok: null,
  "soft-warn": "CONTEXT_SOFT_WARN",
  "near-limit": "CONTEXT_NEAR_LIMIT",
  "too-large": "PROMPT_TOO_LARGE",
  emergency: "PROMPT_EMERGENCY",
};

export const HARD_LIMIT_CODE: ErrorCode = "PROMPT_OVER_HARD_LIMIT";

/** Tiers that refuse the prompt unless --force is given. */
export function isRefusingTier(tier: Tier): boolean {
  return tier === "too-large" || tier === "emergency";
}

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** Estimated tokens: UTF-8 bytes / 4, rounded up so a budget is never under-counted. */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

export interface BudgetVerdict {
  promptBytes: number;
  estimatedTokens: number;
  contextWindow: number;
  /** estimatedTokens / contextWindow. */
  ratio: number;
  /** The ratio in percent, one decimal. */
  percent: number;
  tier: Tier;
  code: ErrorCode | null;
}

/** Integer comparison, so 50 % exactly is soft-warn on every platform. */
function atLeast(tokens: number, window: number, percent: number): boolean {
  return tokens * 100 >= window * percent;
}

export function tierFor(tokens: number, window: number): Tier {
  if (atLeast(tokens, window, THRESHOLDS.emergency)) return "emergency";
  if (atLeast(tokens, window, THRESHOLDS.tooLarge)) return "too-large";
  if (atLeast(tokens, window, THRESHOLDS.nearLimit)) return "near-limit";
  if (atLeast(tokens, window, THRESHOLDS.softWarn)) return "soft-warn";
  return "ok";
}

export function evaluateBudget(promptBytes: number, contextWindow: number): BudgetVerdict {
  if (!Number.isInteger(contextWindow) || contextWindow <= 0) {
    throw new RangeError(`context window must be a positive integer, got ${contextWindow}`);
  }
  const estimatedTokens = estimateTokens(promptBytes);
  const tier = tierFor(estimatedTokens, contextWindow);
  const ratio = estimatedTokens / contextWindow;
  return {
    promptBytes,
    estimatedTokens,
    contextWindow,
    ratio,
    percent: Math.round(ratio * 1000) / 10,
    tier,
    code: TIER_CODES[tier],
  };
}

/** Share of the prompt's estimated tokens each headroom mode asks the proxy to keep. */
export const HEADROOM_KEEP_FACTORS = {
  balanced: 0.4,
  aggressive: 0.2,
  conservative: 0.7,
} as const;

export type HeadroomMode = keyof typeof HEADROOM_KEEP_FACTORS;

/**
 * tokenBudget = floor(promptBytes × k / 4). At least 1: the SDK drops a zero
 * budget from the request, which would silently mean "no budget".
 */
export function tokenBudgetFor(mode: HeadroomMode, promptBytes: number): number {
  // Scaled to integers first so 0.7 × bytes does not land a hair under a whole number.
  const scaled = Math.round(HEADROOM_KEEP_FACTORS[mode] * 100) * promptBytes;
  return Math.max(1, Math.floor(scaled / 400));
}
