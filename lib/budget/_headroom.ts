/**
 * Prompt compression through the headroom proxy, via the `headroom-ai` SDK.
 * The SDK is loaded with a dynamic import only when compression is asked
 * for, so no other command pays for it. Every failure becomes a
 * HEADROOM_UNAVAILABLE warning and the original prompt: compression never
 * blocks a dispatch and never throws.
 */
import { z } from "../infra/zod.ts";
import type { Env } from "../infra/command/ctx.ts";
import { after } from "../infra/timer.ts";
import type { Warning } from "../infra/errors.ts";
import type { preferencesSchemas } from "../state/preferences.ts";
import type { HeadroomResult } from "./_headroom_result.ts";
import { type HeadroomMode, tokenBudgetFor, utf8Bytes } from "./budget.ts";

export const DEFAULT_BASE_URL = "http://localhost:8787";
export const BASE_URL_ENV = "HEADROOM_BASE_URL";
export const TIMEOUT_ENV = "PEAKS_HEADROOM_TIMEOUT_MS";
/** Per attempt; with one retry the call takes at most about twice this. */
export const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 120_000;
const RETRIES = 1;

/** The model name sent to the proxy, which picks its tokenizer from it. */
const PROXY_MODELS: Record<string, string> = {
  "claude-code": "claude-sonnet-4-5-20250929",
};
const DEFAULT_PROXY_MODEL = "gpt-4o";

export function proxyModel(ideId: string): string {
  return PROXY_MODELS[ideId] ?? DEFAULT_PROXY_MODEL;
}

/** The part of the SDK peaks uses, typed narrowly so nothing else leaks in. */
export interface HeadroomSdk {
  compress(
    messages: { role: string; content: string }[],
    options: {
      model: string;
      baseUrl: string;
      apiKey: string;
      timeout: number;
      retries: number;
      fallback: boolean;
      tokenBudget: number;
      stack: string;
    },
  ): Promise<unknown>;
}

export type SdkLoader = () => Promise<HeadroomSdk>;

export const loadHeadroomSdk: SdkLoader = async () =>
  (await import("headroom-ai")) as unknown as HeadroomSdk;

type HeadroomPreferences = z.infer<
  ReturnType<typeof preferencesSchemas>["HeadroomPreferencesSchema"]
>;

export interface HeadroomSettings {
  enabled: boolean;
  mode: HeadroomMode;
  modeSource: "flag" | "preferences" | "default";
  baseUrl: string;
  baseUrlSource: "env" | "preferences" | "default";
  timeoutMs: number;
}

/** Flag > preference > default for the mode; HEADROOM_BASE_URL > preference > default for the URL. */
export function headroomSettings(
  env: Env,
  preferences: HeadroomPreferences | undefined,
  flagMode: HeadroomMode | undefined,
): HeadroomSettings {
  const fromEnv = env.get(BASE_URL_ENV)?.trim();
  const [baseUrl, baseUrlSource] = fromEnv
    ? [fromEnv, "env" as const]
    : preferences?.baseUrl
    ? [preferences.baseUrl, "preferences" as const]
    : [DEFAULT_BASE_URL, "default" as const];
  const [mode, modeSource] = flagMode
    ? [flagMode, "flag" as const]
    : preferences?.defaultMode
    ? [preferences.defaultMode, "preferences" as const]
    : ["balanced" as const, "default" as const];
  return {
    enabled: preferences?.enabled !== false,
    mode,
    modeSource,
    baseUrl,
    baseUrlSource,
    timeoutMs: timeoutFrom(env),
  };
}

function timeoutFrom(env: Env): number {
  const raw = env.get(TIMEOUT_ENV)?.trim();
  if (!raw || !/^\d{1,9}$/.test(raw)) return DEFAULT_TIMEOUT_MS;
  const value = Number(raw);
  return value >= 1 && value <= MAX_TIMEOUT_MS ? value : DEFAULT_TIMEOUT_MS;
}

export interface CompressionRequest {
  prompt: string;
  mode: HeadroomMode;
  baseUrl: string;
  timeoutMs: number;
  model: string;
  /** Replaces the SDK loader (tests of the "SDK missing" path). */
  load?: SdkLoader;
}

export interface CompressionOutcome {
  /** The proxy's shorter prompt, or the original when anything went wrong. */
  prompt: string;
  result: HeadroomResult;
  /** HEADROOM_UNAVAILABLE with its reason, or null when the prompt was compressed. */
  warning: Warning | null;
}

const count = z.number().finite().nonnegative().nullish().transform((v) => v ?? null);

const SdkResultSchema = z.object({
  compressed: z.boolean().optional(),
  messages: z.array(z.object({ content: z.unknown() }).loose()),
  tokensBefore: count,
  tokensAfter: count,
  compressionRatio: count,
  transformsApplied: z.array(z.string()).nullish().transform((v) => v ?? []),
  ccrHashes: z.array(z.string()).nullish().transform((v) => v ?? []),
});

/** Scheme, host and path of the base URL, without credentials, for messages. */
function shownUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return raw.slice(0, 200);
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split("\n")[0].slice(0, 200);
}

/** A short, specific reason for a failed SDK call. */
export function describeFailure(error: unknown, baseUrl: string, timeoutMs: number): string {
  const url = shownUrl(baseUrl);
  const name = error instanceof Error ? error.name : "";
  const message = error instanceof Error ? error.message : String(error);
  const details = (error as { details?: { statusCode?: unknown } } | null)?.details;
  const status = (error as { statusCode?: unknown } | null)?.statusCode ?? details?.statusCode;
  if (name === "HeadroomAuthError") {
    return `the headroom proxy at ${url} refused the request as unauthorized (HTTP 401)`;
  }
  if (typeof status === "number") {
    if (status === 404) {
      return `the headroom proxy at ${url} answered HTTP 404 for /v1/compress (the proxy answers 404 ` +
        "to callers that are not on loopback; check that the URL points at `headroom proxy`)";
    }
    return `the headroom proxy at ${url} answered HTTP ${status}`;
  }
  if (/NotCapable|Requires net access/.test(message)) {
    const host = (() => {
      try {
        return new URL(baseUrl).host;
      } catch {
        return url;
      }
    })();
    return `peaks may only connect to loopback addresses (127.0.0.1, localhost, [::1]); ` +
      `${host} was refused (NotCapable)`;
  }
  if (/TimeoutError|timed out|due to timeout/i.test(message)) {
    return `the headroom proxy at ${url} did not answer within ${timeoutMs} ms`;
  }
  if (/SyntaxError|JSON/.test(message)) {
    return `the headroom proxy at ${url} sent an answer that is not valid JSON`;
  }
  if (/fetch failed|connect|refused|dns|lookup/i.test(message)) {
    return `nothing answered at ${url} (is \`headroom proxy\` running?)`;
  }
  return `the headroom call failed: ${firstLine(error)}`;
}

type Measured =
  & Partial<Pick<HeadroomResult, "tokensBefore" | "tokensAfter" | "compressionRatio">>
  & {
    transformsApplied?: string[];
    ccrHashes?: string[];
  };

/** The prompt unchanged, with the reason compression was skipped. */
function skipped(
  request: CompressionRequest,
  tokenBudget: number,
  reason: string,
  measured: Measured = {},
): CompressionOutcome {
  const { prompt, mode, baseUrl, model } = request;
  return {
    prompt,
    result: {
      mode,
      tokenBudget,
      model,
      compressed: false,
      tokensBefore: measured.tokensBefore ?? null,
      tokensAfter: measured.tokensAfter ?? null,
      compressionRatio: measured.compressionRatio ?? null,
      transformsApplied: measured.transformsApplied ?? [],
      reason,
      ccrHashes: measured.ccrHashes ?? [],
    },
    warning: {
      code: "HEADROOM_UNAVAILABLE",
      message: `Headroom compression skipped: ${reason}. The prompt goes on uncompressed.`,
      reason,
      baseUrl: shownUrl(baseUrl),
    },
  };
}

/** Compresses one prompt; never throws, never blocks longer than the retries allow. */
export async function compressPrompt(request: CompressionRequest): Promise<CompressionOutcome> {
  const { prompt, mode, baseUrl, timeoutMs, model } = request;
  const promptBytes = utf8Bytes(prompt);
  const tokenBudget = tokenBudgetFor(mode, promptBytes);
  const fail = (reason: string, measured?: Measured) =>
    skipped(request, tokenBudget, reason, measured);
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(baseUrl);
  } catch {
    return fail(`the headroom base URL ${JSON.stringify(shownUrl(baseUrl))} is not a valid URL`);
  }
  if (parsedUrl.protocol !== "http:" && parsedUrl.protocol !== "https:") {
    return fail(`the headroom base URL must use http or https, not ${parsedUrl.protocol}`);
  }
  let sdk: HeadroomSdk;
  try {
    sdk = await (request.load ?? loadHeadroomSdk)();
  } catch (error) {
    return fail(`the headroom-ai SDK could not be loaded (${firstLine(error)})`);
  }
  let raw: unknown;
  try {
    raw = await callSdk(sdk, request, parsedUrl, tokenBudget);
  } catch (error) {
    return fail(describeFailure(error, baseUrl, timeoutMs));
  }
  const parsed = SdkResultSchema.safeParse(raw);
  if (!parsed.success) {
    return fail(`the headroom proxy at ${shownUrl(baseUrl)} sent an answer peaks cannot read`);
  }
  const result = parsed.data;
  const measured = {
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    compressionRatio: result.compressionRatio,
    transformsApplied: result.transformsApplied,
    ccrHashes: result.ccrHashes,
  };
  if (result.compressed === false) {
    return fail(
      "the headroom SDK reported compressed:false (it fell back to the original)",
      measured,
    );
  }
  const content = result.messages.length === 1 ? result.messages[0].content : undefined;
  if (typeof content !== "string" || content.length === 0) {
    return fail(
      "the headroom proxy did not return the prompt as one non-empty text message",
      measured,
    );
  }
  if (utf8Bytes(content) >= promptBytes) {
    return fail("the headroom proxy returned no reduction", measured);
  }
  return {
    prompt: content,
    result: { mode, tokenBudget, model, compressed: true, ...measured, reason: null },
    warning: null,
  };
}

/** One SDK call; the SDK bounds each attempt, the outer deadline guards against one that does not. */
async function callSdk(
  sdk: HeadroomSdk,
  request: CompressionRequest,
  url: URL,
  tokenBudget: number,
): Promise<unknown> {
  const { timeoutMs } = request;
  const timer = after((RETRIES + 1) * timeoutMs + 1_000);
  const deadline = timer.done.then((): never => {
    throw new Error("TimeoutError: the call timed out");
  });
  try {
    return await Promise.race([
      sdk.compress([{ role: "user", content: request.prompt }], {
        model: request.model,
        baseUrl: url.href.replace(/\/+$/, ""),
        // An explicit empty key keeps the SDK from reading HEADROOM_API_KEY itself.
        apiKey: "",
        timeout: timeoutMs,
        retries: RETRIES,
        // Without the SDK's silent fallback every failure keeps its own reason.
        fallback: false,
        tokenBudget,
        stack: "peaks",
      }),
      deadline,
    ]);
  } finally {
    timer.cancel();
  }
}
