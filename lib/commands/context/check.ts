import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { guardFlagPath, type Project, resolveProject } from "../../workspace/project.ts";
import { detectIde, IDE_IDS } from "../../hosts/registry.ts";
import { PeaksError, usageError, type Warning } from "../../infra/errors.ts";
import { displayPath } from "../../workspace/paths.ts";
import { PROMPT_HARD_LIMIT_BYTES, THRESHOLDS } from "../../budget/budget.ts";
import {
  assertUnderHardLimit,
  budgetData,
  governPrompt,
  type RerunChange,
} from "../../budget/governance.ts";
import { governanceFlags, governanceWords } from "../../budget/flags.ts";
import { peaksLine } from "../../infra/shell.ts";
import type { Ctx } from "../../infra/command/ctx.ts";

export const CHECK_ENVELOPE_VERSION = "1.0.0";

export default defineCommand({
  name: "context check",
  description:
    "Gives the G9 prompt-budget verdict dispatch would give, without dispatching: estimated tokens " +
    "(UTF-8 bytes / 4) as a share of the sub-agent's context window. Below 50% ok; from 50% " +
    "CONTEXT_SOFT_WARN; from 75% CONTEXT_NEAR_LIMIT; from 80% PROMPT_TOO_LARGE and from 90% " +
    "PROMPT_EMERGENCY, both refused unless --force. Over 1 MiB is refused whatever the flags. " +
    "--use-headroom compresses the prompt through the local headroom proxy first and judges the result.",
  flags: {
    "prompt-file": flag.string("The prompt to check (inside the project).", {
      placeholder: "<path>",
      required: true,
      max: 4096,
    }),
    ide: flag.enum(IDE_IDS, "Judge against this IDE's default window (default: detected)."),
    ...governanceFlags,
  },
  examples: [
    "peaks context check --prompt-file .peaks/_runtime/prompt.md --json",
    "peaks context check --prompt-file prompts/rd.md --context-window 128000 --use-headroom --json",
    "peaks context check --prompt-file prompts/rd.md --ide codex --headroom-mode aggressive --use-headroom",
  ],
  exitNotes: [
    "3: PROMPT_TOO_LARGE / PROMPT_EMERGENCY without --force, or PROMPT_OVER_HARD_LIMIT (> 1 MiB).",
  ],
  async run({ flags }, ctx) {
    const project = await resolveProject(ctx);
    const { path, prompt } = await readPromptFile(ctx, project, flags["prompt-file"]);
    const detected = await detectIde(ctx.env, project.root, flags.ide);

    const rerun = (change: RerunChange) =>
      peaksLine(project.root, [
        "context",
        "check",
        "--prompt-file",
        path,
        ...(flags.ide === undefined ? [] : ["--ide", flags.ide]),
        ...governanceWords(flags, change),
      ]);

    const ideWarnings: Warning[] = detected.source === "assumed"
      ? [{
        code: "IDE_ASSUMED",
        message:
          "No IDE detected from the environment or project folders; judged as claude-code. " +
          "Pass --ide to choose.",
      }]
      : [];
    const where = {
      projectRoot: project.root,
      promptFile: displayPath(project.root, path),
      ide: detected.ide.id,
      ideSource: detected.source,
    };

    let outcome;
    try {
      outcome = await governPrompt({
        prompt,
        ide: detected.ide,
        contextWindow: flags["context-window"],
        force: flags.force,
        useHeadroom: flags["use-headroom"],
        headroomMode: flags["headroom-mode"],
        project,
        env: ctx.env,
        now: ctx.now(),
        rerun,
      });
    } catch (error) {
      if (error instanceof PeaksError) {
        Object.assign(error.data, where, { envelopeVersion: CHECK_ENVELOPE_VERSION });
        error.warnings.unshift(...ideWarnings);
      }
      throw error;
    }

    const data = {
      envelopeVersion: CHECK_ENVELOPE_VERSION,
      ...where,
      ...budgetData(outcome),
      thresholds: { ...THRESHOLDS, hardLimitBytes: PROMPT_HARD_LIMIT_BYTES },
    };
    const compressedNote = outcome.headroomCompressed
      ? ` after headroom (${outcome.originalPromptSize} -> ${outcome.promptSize} bytes)`
      : "";
    return {
      data,
      warnings: [...ideWarnings, ...outcome.warnings],
      nextActions: outcome.suggestions,
      human:
        `${outcome.budget.tier}: ${outcome.budget.estimatedTokens} tokens = ${outcome.budget.percent}% ` +
        `of ${outcome.budget.contextWindow} (${detected.ide.id})${compressedNote}` +
        (outcome.forcedAt ? `, forced at ${outcome.forcedAt}` : ""),
    };
  },
});

/** The prompt file, refused before reading when it is past the hard limit. */
async function readPromptFile(
  ctx: Ctx,
  project: Project,
  raw: string,
): Promise<{ path: string; prompt: string }> {
  const path = await guardFlagPath(ctx, project, raw, { flag: "prompt-file", mustExist: true });
  const info = Deno.statSync(path);
  if (!info.isFile) {
    throw usageError("INVALID_FLAG_VALUE", `--prompt-file ${path} is not a file.`, {
      data: { flag: "prompt-file", path },
    });
  }
  // Refused before reading, so a huge file is never loaded.
  assertUnderHardLimit(info.size);
  return { path, prompt: Deno.readTextFileSync(path) };
}
