/**
 * The G9 gate for one sub-agent prompt: optional headroom compression, then
 * the budget verdict. `peaks context check` and `peaks sub-agent dispatch`
 * both call `governPrompt`; only the caller decides what happens next.
 *
 * Dispatch integration:
 *
 *     const outcome = await governPrompt({
 *       prompt,                       // the fully composed prompt text
 *       ide: detected.ide,            // from detectIde (lib/hosts/registry.ts)
 *       contextWindow: flags["context-window"],
 *       force: flags.force,
 *       useHeadroom: flags["use-headroom"],
 *       headroomMode: flags["headroom-mode"],
 *       project, env: ctx.env, now: ctx.now(),
 *       rerun: (change) => commandLine([...sameDispatchWords, ...flagsFor(change)]),
 *     });
 *     // outcome.prompt goes into the record and the tool call;
 *     // outcome.headroomRecord and outcome.forcedAt go into the record;
 *     // budgetData(outcome) spreads into the envelope; outcome.warnings join its warnings.
 *
 * It throws a PeaksError instead of returning when the prompt is refused:
 * PROMPT_OVER_HARD_LIMIT (> 1 MiB, whatever the flags), PROMPT_TOO_LARGE and
 * PROMPT_EMERGENCY (>= 80 % / >= 90 % of the window without --force), all
 * exit 3, with runnable nextActions built by `rerun`; and a usage error
 * (exit 2) for --headroom-mode without --use-headroom. Headroom problems
 * never throw: they are HEADROOM_UNAVAILABLE / HEADROOM_DISABLED_BY_PREFERENCE
 * warnings and the original prompt goes on. The SDK is imported only when
 * `useHeadroom` is true and the preferences allow it.
 */
import type { Env } from "../infra/command/ctx.ts";
import { gateError, PeaksError, usageError, type Warning } from "../infra/errors.ts";
import type { IdeEntry } from "../hosts/registry.ts";
import type { Project } from "../workspace/project.ts";
import type { Preferences } from "../preferences/preferences.ts";
import type { HeadroomResult } from "./_headroom_result.ts";
import {
  type BudgetVerdict,
  evaluateBudget,
  HARD_LIMIT_CODE,
  type HeadroomMode,
  isRefusingTier,
  PROMPT_HARD_LIMIT_BYTES,
  THRESHOLDS,
  utf8Bytes,
} from "./budget.ts";
import type { SdkLoader } from "./_headroom.ts";
import { isoTime } from "../infra/ids.ts";

/** What a suggested re-run changes; the caller turns it into its own command line. */
export interface RerunChange {
  useHeadroom?: true;
  headroomMode?: HeadroomMode;
  force?: true;
}

export interface GovernRequest {
  prompt: string;
  /**
   * Bytes the final prompt adds around `prompt` (dispatch's CLI-generated
   * blocks). Only `prompt` is compressed; sizes and the verdict count both.
   */
  extraBytes?: number;
  ide: IdeEntry;
  /** --context-window; the IDE's default window when absent. */
  contextWindow?: number;
  force: boolean;
  useHeadroom: boolean;
  /** --headroom-mode; the preference or "balanced" when absent. */
  headroomMode?: HeadroomMode;
  /** Preferences are read from here, and only when useHeadroom is set. */
  project: Project;
  env: Env;
  now: Date;
  /** The same command with `change` applied, as a runnable command line. */
  rerun: (change: RerunChange) => string;
  /** Model name for the proxy; by default derived from the IDE. */
  model?: string;
  /** Replaces the SDK loader (tests). */
  loadSdk?: SdkLoader;
}

export interface GovernOutcome {
  /** The prompt to dispatch: compressed when headroom succeeded, else the original. */
  prompt: string;
  originalPromptSize: number;
  promptSize: number;
  /** The verdict on `prompt` (after compression). */
  budget: BudgetVerdict;
  /** The verdict on the original prompt, when compression changed it. */
  budgetBeforeCompression: BudgetVerdict | null;
  contextWindowSource: "flag" | "ide";
  /** Set when --force let a refusing tier through. */
  forcedAt: string | null;
  headroomCompressed: boolean;
  /** For envelopes: the measured result without CCR hashes; null when headroom was not used. */
  headroomResult: Omit<HeadroomResult, "ccrHashes"> | null;
  /** For records: the same with CCR hashes. */
  headroomRecord: HeadroomResult | null;
  warnings: Warning[];
  /** Commands worth running next (e.g. the same call with --use-headroom). */
  suggestions: string[];
}

export function assertUnderHardLimit(promptBytes: number): void {
  if (promptBytes <= PROMPT_HARD_LIMIT_BYTES) return;
  throw gateError(
    HARD_LIMIT_CODE,
    `The prompt is ${promptBytes} bytes; peaks refuses any prompt over 1 MiB ` +
      `(${PROMPT_HARD_LIMIT_BYTES} bytes) whatever the flags.`,
    {
      data: { promptBytes, hardLimitBytes: PROMPT_HARD_LIMIT_BYTES },
      instructions: [
        "Write the bulky material (logs, specs, code listings) to files and give the sub-agent their paths.",
        "Or split the work across several sub-agents with smaller prompts.",
      ],
    },
  );
}

/** The budget fields every envelope that ran the gate carries. */
export function budgetData(outcome: GovernOutcome) {
  return {
    originalPromptSize: outcome.originalPromptSize,
    promptSize: outcome.promptSize,
    estimatedTokens: outcome.budget.estimatedTokens,
    contextWindow: outcome.budget.contextWindow,
    contextWindowSource: outcome.contextWindowSource,
    percent: outcome.budget.percent,
    tier: outcome.budget.tier,
    tierCode: outcome.budget.code,
    percentBeforeCompression: outcome.budgetBeforeCompression?.percent ?? null,
    forcedAt: outcome.forcedAt,
    headroomCompressed: outcome.headroomCompressed,
    headroomResult: outcome.headroomResult,
  };
}

/** The warning of a non-refusing tier above ok: short, since it rides in small envelopes. */
function budgetWarning(verdict: BudgetVerdict, suggestHeadroom: boolean): Warning {
  const share =
    `Prompt ≈ ${verdict.percent}% of a ${verdict.contextWindow}-token window (${verdict.estimatedTokens} tokens)`;
  const hint = suggestHeadroom ? "; try --use-headroom" : "";
  if (verdict.tier === "soft-warn") {
    return { code: "CONTEXT_SOFT_WARN", message: `${share}${hint}.` };
  }
  return {
    code: "CONTEXT_NEAR_LIMIT",
    message: `${share}; from ${THRESHOLDS.tooLarge}% it needs --force${hint}.`,
  };
}

/**
 * The preferences, or (when the file is broken) a HEADROOM_UNAVAILABLE warning:
 * headroom is skipped rather than guessed, and the dispatch is not blocked.
 */
async function preferencesOrWarning(project: Project): Promise<Preferences | Warning> {
  // Loaded only when headroom is asked for: most dispatches never read the preferences.
  const { readPreferences } = await import("../preferences/preferences.ts");
  try {
    return await readPreferences(project);
  } catch (error) {
    if (!(error instanceof PeaksError) || error.code !== "RECORD_UNREADABLE") throw error;
    const reason =
      "the project preferences file is unreadable, so the headroom settings are unknown";
    return {
      code: "HEADROOM_UNAVAILABLE",
      message: `Headroom compression skipped: ${reason}. ${error.message}`,
      reason,
      repair: error.nextActions,
    };
  }
}

async function headroomEnabled(project: Project): Promise<boolean> {
  const { readPreferences } = await import("../preferences/preferences.ts");
  try {
    return (await readPreferences(project)).headroom?.enabled !== false;
  } catch {
    return true;
  }
}

export async function governPrompt(request: GovernRequest): Promise<GovernOutcome> {
  const { prompt, ide, useHeadroom } = request;
  if (request.headroomMode !== undefined && !useHeadroom) {
    throw usageError(
      "INVALID_FLAG_COMBINATION",
      "--headroom-mode only applies together with --use-headroom.",
      {
        data: { flag: "headroom-mode", requires: "use-headroom" },
        nextActions: [request.rerun({ useHeadroom: true })],
      },
    );
  }
  const extra = request.extraBytes ?? 0;
  const originalPromptSize = utf8Bytes(prompt) + extra;
  assertUnderHardLimit(originalPromptSize);
  const contextWindow = request.contextWindow ?? ide.contextWindow;
  const warnings: Warning[] = [];
  const { current, headroomRecord } = useHeadroom
    ? await compressIfAllowed(request, warnings)
    : { current: prompt, headroomRecord: null };
  const budget = evaluateBudget(utf8Bytes(current) + extra, contextWindow);
  const compressed = headroomRecord?.compressed === true;
  const outcome: GovernOutcome = {
    prompt: current,
    originalPromptSize,
    promptSize: utf8Bytes(current) + extra,
    budget,
    budgetBeforeCompression: compressed ? evaluateBudget(originalPromptSize, contextWindow) : null,
    contextWindowSource: request.contextWindow === undefined ? "ide" : "flag",
    forcedAt: null,
    headroomCompressed: compressed,
    headroomResult: headroomRecord ? (({ ccrHashes: _, ...shown }) => shown)(headroomRecord) : null,
    headroomRecord,
    warnings,
    suggestions: [],
  };
  if (budget.tier === "ok") return outcome;
  const canSuggestHeadroom = !useHeadroom && await headroomEnabled(request.project);
  if (canSuggestHeadroom) outcome.suggestions.push(request.rerun({ useHeadroom: true }));
  if (compressed && headroomRecord?.mode !== "aggressive") {
    outcome.suggestions.push(request.rerun({ headroomMode: "aggressive" }));
  }
  if (!isRefusingTier(budget.tier)) {
    warnings.push(budgetWarning(budget, canSuggestHeadroom));
    return outcome;
  }
  return refuseOrForce(request, outcome, canSuggestHeadroom);
}

/** --use-headroom: the compressed prompt, unless the preferences turn headroom off. */
async function compressIfAllowed(
  request: GovernRequest,
  warnings: Warning[],
): Promise<{ current: string; headroomRecord: HeadroomResult | null }> {
  const { prompt, ide } = request;
  const preferences = await preferencesOrWarning(request.project);
  if ("code" in preferences) {
    warnings.push(preferences);
    return { current: prompt, headroomRecord: null };
  }
  const { compressPrompt, headroomSettings, proxyModel } = await import("./_headroom.ts");
  const settings = headroomSettings(request.env, preferences.headroom, request.headroomMode);
  if (!settings.enabled) {
    warnings.push({
      code: "HEADROOM_DISABLED_BY_PREFERENCE",
      message:
        "--use-headroom was ignored: the project preferences set headroom.enabled to false. " +
        "The prompt goes on uncompressed.",
    });
    return { current: prompt, headroomRecord: null };
  }
  const outcome = await compressPrompt({
    prompt,
    mode: settings.mode,
    baseUrl: settings.baseUrl,
    timeoutMs: settings.timeoutMs,
    model: request.model ?? proxyModel(ide.id),
    load: request.loadSdk,
  });
  if (outcome.warning) warnings.push(outcome.warning);
  return { current: outcome.prompt, headroomRecord: outcome.result };
}

/** A refusing tier: refused with the ways out, or sent anyway with --force (recorded). */
function refuseOrForce(
  request: GovernRequest,
  outcome: GovernOutcome,
  canSuggestHeadroom: boolean,
): GovernOutcome {
  const { budget, warnings } = outcome;
  const contextWindow = request.contextWindow ?? request.ide.contextWindow;
  const share = `${budget.percent}% of the ${contextWindow}-token window of ${request.ide.id}`;
  if (!request.force) {
    const afterCompression = outcome.headroomCompressed ? " after headroom compression" : "";
    throw gateError(
      budget.code!,
      budget.tier === "emergency"
        ? `The prompt takes ${share}${afterCompression} (>= ${THRESHOLDS.emergency}%): ` +
          "the sub-agent would start with almost no room to work. Refused."
        : `The prompt takes ${share}${afterCompression} (>= ${THRESHOLDS.tooLarge}%). Refused.`,
      {
        data: budgetData(outcome),
        warnings,
        nextActions: [...outcome.suggestions, request.rerun({ force: true })],
        instructions: [
          "Shrink the prompt: move long material into files and pass their paths, or split the work.",
          ...(canSuggestHeadroom
            ? ["--use-headroom compresses it through the local headroom proxy first."]
            : []),
          "--force sends it anyway and records forcedAt; the sub-agent may run out of context.",
        ],
      },
    );
  }
  outcome.forcedAt = isoTime(request.now);
  warnings.push({
    code: budget.code!,
    message:
      `Forced with --force: the prompt takes ${share}; the sub-agent starts with little room to work.`,
    forced: true,
    percent: budget.percent,
  });
  return outcome;
}
