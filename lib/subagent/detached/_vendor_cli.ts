/**
 * How each vendor CLI is started for a detached run. The prompt goes on
 * stdin wherever the vendor's documentation says it reads one from there:
 * stdin has no size limit, is not visible to other users in the process
 * list, and needs no quoting through a Windows `.cmd` shim. OpenCode's
 * `run` takes its message as an argument, so its prompt is capped to keep
 * the command line within OS limits.
 */
import { ideById, type IdeEntry } from "../../core/ide/ide.ts";
import type { Vendor } from "../../core/ide/vendors.ts";

const KiB = 1024;

export interface VendorCli {
  input: "stdin" | "argv";
  /** The arguments; `prompt` is null when the prompt goes on stdin. */
  args(prompt: string | null): string[];
  /** Largest prompt (UTF-8 bytes) the vendor may receive as one argument. */
  argvCap: number;
}

export const VENDOR_CLI: Record<Vendor, VendorCli> = {
  // claude -p: a prompt on stdin is read in print mode (the argument form is `-p <prompt>`).
  claude: {
    input: "stdin",
    args: (prompt) =>
      prompt === null
        ? ["-p", "--output-format", "json"]
        : ["-p", prompt, "--output-format", "json"],
    argvCap: 8 * KiB,
  },
  // codex exec reads the prompt from stdin when it is given as `-`.
  codex: {
    input: "stdin",
    args: (prompt) => ["exec", "--json", prompt ?? "-"],
    argvCap: 5 * KiB,
  },
  // copilot runs a piped prompt non-interactively (`-p` would make it ignore stdin).
  copilot: {
    input: "stdin",
    args: (prompt) => prompt === null ? [] : ["-p", prompt],
    argvCap: 6 * KiB,
  },
  // gemini runs headless when stdin is not a terminal and answers the piped text.
  gemini: {
    input: "stdin",
    args: (prompt) => prompt === null ? [] : ["-p", prompt],
    argvCap: 8 * KiB,
  },
  opencode: {
    input: "argv",
    args: (prompt) => ["run", prompt ?? ""],
    argvCap: 8 * KiB,
  },
};

export interface Invocation {
  args: string[];
  /** Text written to the vendor's stdin, then closed; null: stdin is /dev/null. */
  stdin: string | null;
}

export function invocation(vendor: Vendor, prompt: string): Invocation {
  const cli = VENDOR_CLI[vendor];
  return cli.input === "stdin"
    ? { args: cli.args(null), stdin: prompt }
    : { args: cli.args(prompt), stdin: null };
}

/** The vendor's own context window judges the prompt (claude runs with claude-code's). */
export function vendorIde(vendor: Vendor): IdeEntry {
  return ideById(vendor === "claude" ? "claude-code" : vendor) ?? ideById("unknown")!;
}
