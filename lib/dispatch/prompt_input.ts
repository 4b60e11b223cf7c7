/**
 * The caller's prompt: `--prompt <text>`, `--prompt-file <path>` or
 * `--prompt -` (stdin). Files and stdin are read as data, never through argv,
 * so prompts far larger than one shell argument work. The only size rule
 * here is a safety cap; the prompt budget is a separate, later check.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { gateError, usageError } from "../infra/errors.ts";
import { guardFlagPath, type Project } from "../workspace/project.ts";

/** Whether the caller gave a prompt at all (without one, rd, qa and txt get peaks' task). */
export function promptGiven(flags: { prompt?: string; "prompt-file"?: string }): boolean {
  return flags.prompt !== undefined || flags["prompt-file"] !== undefined;
}

/** Refuse inputs past this many bytes: far beyond any useful prompt, small enough to hold in memory. */
export const PROMPT_SAFETY_CAP = 32 * 1024 * 1024;

export interface PromptInput {
  text: string;
  /** `workflow`: no prompt was given, and peaks wrote the role's task for the request. */
  source: "flag" | "file" | "stdin" | "workflow";
  /** Absolute path when the prompt came from --prompt-file. */
  file: string | null;
}

function tooLarge(bytes: number, where: string) {
  return gateError(
    "PROMPT_OVER_SAFETY_CAP",
    `The prompt from ${where} is ${bytes} bytes; peaks refuses prompts over ${PROMPT_SAFETY_CAP} bytes (32 MiB). Point the sub-agent at files instead of pasting them.`,
    { data: { bytes, cap: PROMPT_SAFETY_CAP } },
  );
}

function decode(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export async function readPromptInput(
  ctx: Ctx,
  project: Project,
  flags: { prompt?: string; "prompt-file"?: string },
): Promise<PromptInput> {
  const inline = flags.prompt;
  const file = flags["prompt-file"];
  if (inline !== undefined && file !== undefined) {
    throw usageError(
      "CONFLICTING_FLAGS",
      "Give the prompt once: --prompt <text>, --prompt-file <path> or --prompt - (stdin).",
      { data: { flags: ["prompt", "prompt-file"] } },
    );
  }
  let input: PromptInput;
  if (file !== undefined) {
    const path = await guardFlagPath(ctx, project, file, { flag: "prompt-file", mustExist: true });
    const info = Deno.statSync(path);
    if (!info.isFile) {
      throw usageError("INVALID_FLAG_VALUE", `--prompt-file ${path} is not a regular file.`, {
        data: { flag: "prompt-file" },
      });
    }
    if (info.size > PROMPT_SAFETY_CAP) throw tooLarge(info.size, "--prompt-file");
    input = { text: decode(Deno.readFileSync(path)), source: "file", file: path };
  } else if (inline === "-") {
    const text = await ctx.stdin.readAll({ maxBytes: PROMPT_SAFETY_CAP + 1 });
    if (text === undefined) {
      throw usageError(
        "MISSING_PROMPT",
        "--prompt - reads the prompt from stdin, but stdin is a terminal: pipe the prompt in or use --prompt-file <path>.",
        { data: { flag: "prompt" } },
      );
    }
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > PROMPT_SAFETY_CAP) throw tooLarge(bytes, "stdin");
    input = { text, source: "stdin", file: null };
  } else if (inline !== undefined) {
    input = { text: inline, source: "flag", file: null };
  } else {
    throw usageError(
      "MISSING_PROMPT",
      "peaks sub-agent dispatch needs a prompt: --prompt <text>, --prompt-file <path> or --prompt - (stdin). With --request-id, peaks writes the task itself for rd, qa and txt once the request is there, and for ui, rd-planning and qa-test-cases once swarm plan planned them.",
      { data: { flags: ["prompt", "prompt-file"] } },
    );
  }
  if (input.text.trim() === "") {
    throw usageError("EMPTY_PROMPT", `The prompt from ${input.source} is empty.`, {
      data: { source: input.source },
    });
  }
  return input;
}
