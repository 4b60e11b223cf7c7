/**
 * How each vendor CLI is started for a detached run. The prompt goes on
 * stdin wherever the vendor reads one from there: stdin has no size limit,
 * is not visible to other users in the process list, and needs no quoting
 * through a Windows `.cmd` shim. OpenCode's `run` takes its message as an
 * argument, so its prompt is capped to keep the command line within OS
 * limits.
 *
 * Every vendor is asked for its structured output (the supervisor reads the
 * outcome from it, see _vendor_output.ts) and given a permission posture:
 * `role` (the default) lets the sub-agent edit files inside the project and
 * run `peaks`, and refuses the rest; `read-only` keeps `peaks` and reading;
 * `full` is whatever the vendor can do without asking. Each vendor's flags
 * were checked against the pinned CLI's `--help` and by real runs
 * (docs/hosts.md).
 */
import { ideById, type IdeEntry } from "../hosts/registry.ts";
import { join } from "../infra/std.ts";
import type { Vendor } from "../hosts/vendors.ts";
import { DEFAULT_VENDOR_PERMISSIONS, type VendorPermissions } from "../state/preferences.ts";

const KiB = 1024;

/** What a vendor's command line depends on besides the prompt. */
export interface Launch {
  permissions: VendorPermissions;
  /** The run folder (absolute); files the vendor reads are written there. */
  runDir: string;
  /**
   * Folders outside the working folder the sub-agent must be able to write:
   * an isolated slice works in its worktree but its peaks calls write the
   * main project's `.peaks`. Only a vendor that sandboxes child processes
   * (codex) needs to be told.
   */
  writable?: string[];
  /** The role's model, passed as the vendor's model flag. */
  model?: string;
  /** The role's effort, passed where the vendor has an effort flag that takes it. */
  effort?: string;
}

export interface VendorCli {
  input: "stdin" | "argv";
  /** The arguments; `prompt` is null when the prompt goes on stdin. */
  args(prompt: string | null, launch: Launch): string[];
  /** Variables added to the vendor's environment. */
  env?(launch: Launch): Record<string, string>;
  /** Files written into the run folder before the vendor starts (name -> text). */
  files?(launch: Launch): Record<string, string>;
  /** Largest prompt (UTF-8 bytes) the vendor may receive as one argument. */
  argvCap: number;
}

const DEFAULT_LAUNCH: Launch = { permissions: DEFAULT_VENDOR_PERMISSIONS, runDir: "." };

/** How a vendor CLI takes a model or an effort: its flag words, and the values it accepts. */
export interface TuningFlag {
  args(value: string): string[];
  /** The values the CLI takes; absent = any (the vendor judges). */
  values?: readonly string[];
}

/**
 * Each vendor's model and effort flags, from the pinned CLI's `--help` and
 * real runs against the stand-in API (docs/detached.md). Gemini CLI has no
 * effort flag; OpenCode's `--variant` is its model's reasoning variant.
 */
export const TUNING_FLAGS: Record<Vendor, { model: TuningFlag; effort?: TuningFlag }> = {
  claude: {
    model: { args: (v) => ["--model", v] },
    // claude ignores any other value with a warning of its own.
    effort: { args: (v) => ["--effort", v], values: ["low", "medium", "high", "xhigh", "max"] },
  },
  codex: {
    model: { args: (v) => ["-m", v] },
    effort: { args: (v) => ["-c", `model_reasoning_effort=${v}`] },
  },
  copilot: {
    model: { args: (v) => ["--model", v] },
    effort: { args: (v) => ["--reasoning-effort", v] },
  },
  gemini: { model: { args: (v) => ["-m", v] } },
  opencode: {
    // `provider/model`, as in OpenCode's own config.
    model: { args: (v) => ["-m", v] },
    effort: { args: (v) => ["--variant", v] },
  },
};

/** The launch's model and effort as the vendor's flags. */
export function tuningArgs(vendor: Vendor, launch: Launch): string[] {
  const flags = TUNING_FLAGS[vendor];
  return [
    ...(launch.model ? flags.model.args(launch.model) : []),
    ...(launch.effort && flags.effort ? flags.effort.args(launch.effort) : []),
  ];
}

/** Claude Code's permission modes; `Bash(peaks:*)` lets any posture run peaks itself. */
const CLAUDE_POSTURE: Record<VendorPermissions, string[]> = {
  role: ["--permission-mode", "acceptEdits", "--allowedTools", "Bash(peaks:*)"],
  "read-only": ["--permission-mode", "dontAsk", "--allowedTools", "Bash(peaks:*)"],
  full: ["--permission-mode", "bypassPermissions"],
};

/** codex exec never asks (its approval policy is `never`); the sandbox decides. */
const CODEX_POSTURE: Record<VendorPermissions, string[]> = {
  role: [
    "-s",
    "workspace-write",
    // workspace-write also opens /tmp and $TMPDIR by default: the project only.
    "-c",
    "sandbox_workspace_write.exclude_slash_tmp=true",
    "-c",
    "sandbox_workspace_write.exclude_tmpdir_env_var=true",
  ],
  "read-only": ["-s", "read-only"],
  full: ["-s", "danger-full-access"],
};

export const GEMINI_POLICY_FILE = "gemini-policy.toml";

/** Gemini CLI policy rules for one run: the shell may run peaks and nothing else; no web fetches. */
export const GEMINI_POLICY = [
  "# Written by peaks for one detached run (docs/detached.md).",
  "[[rule]]",
  'toolName = "run_shell_command"',
  'commandPrefix = "peaks"',
  'decision = "allow"',
  "priority = 100",
  "",
  "[[rule]]",
  'toolName = "web_fetch"',
  'decision = "deny"',
  "priority = 100",
  "",
].join("\n");

function geminiPosture(launch: Launch): string[] {
  const policy = ["--policy", join(launch.runDir, GEMINI_POLICY_FILE)];
  switch (launch.permissions) {
    case "role":
      return ["--approval-mode", "auto_edit", ...policy];
    case "read-only":
      return ["--approval-mode", "default", ...policy];
    case "full":
      return ["--approval-mode", "yolo"];
  }
}

/** OpenCode's permission rules, passed as OPENCODE_PERMISSION (it has no permission flags). */
export function opencodePermission(permissions: VendorPermissions): Record<string, unknown> | null {
  if (permissions === "full") return null;
  return {
    edit: permissions === "role" ? "allow" : "deny",
    bash: { "*": "deny", "peaks *": "allow" },
    webfetch: "deny",
    websearch: "deny",
    task: "deny",
    external_directory: "deny",
  };
}

const COPILOT_POSTURE: Record<VendorPermissions, string[]> = {
  role: ["--allow-tool", "shell(peaks:*)", "--allow-tool", "write"],
  "read-only": ["--allow-tool", "shell(peaks:*)"],
  full: ["--allow-all"],
};

export const VENDOR_CLI: Record<Vendor, VendorCli> = {
  // claude -p: a prompt on stdin is read in print mode (the argument form is `-p <prompt>`).
  claude: {
    input: "stdin",
    args: (prompt, launch) => [
      "-p",
      ...(prompt === null ? [] : [prompt]),
      "--output-format",
      "json",
      ...tuningArgs("claude", launch),
      // Last: --allowedTools takes every word up to the next option.
      ...CLAUDE_POSTURE[launch.permissions],
    ],
    argvCap: 8 * KiB,
  },
  // codex exec reads the prompt from stdin when it is given as `-`.
  codex: {
    input: "stdin",
    args: (prompt, launch) => [
      "exec",
      "--json",
      // A project need not be a git repository; the sandbox still holds.
      "--skip-git-repo-check",
      ...tuningArgs("codex", launch),
      ...CODEX_POSTURE[launch.permissions],
      ...(launch.permissions === "role"
        ? (launch.writable ?? []).flatMap((dir) => ["--add-dir", dir])
        : []),
      prompt ?? "-",
    ],
    argvCap: 5 * KiB,
  },
  // copilot runs a piped prompt non-interactively (`-p` would make it ignore stdin).
  copilot: {
    input: "stdin",
    args: (prompt, launch) => [
      ...(prompt === null ? [] : ["-p", prompt]),
      "--output-format",
      "json",
      ...tuningArgs("copilot", launch),
      ...COPILOT_POSTURE[launch.permissions],
    ],
    argvCap: 6 * KiB,
  },
  // gemini runs headless when stdin is not a terminal and answers the piped text;
  // headless it refuses an untrusted folder unless told to trust it for the session.
  gemini: {
    input: "stdin",
    args: (prompt, launch) => [
      ...(prompt === null ? [] : ["-p", prompt]),
      "--output-format",
      "stream-json",
      "--skip-trust",
      ...tuningArgs("gemini", launch),
      ...geminiPosture(launch),
    ],
    files: (launch): Record<string, string> =>
      launch.permissions === "full" ? {} : { [GEMINI_POLICY_FILE]: GEMINI_POLICY },
    argvCap: 8 * KiB,
  },
  opencode: {
    input: "argv",
    args: (prompt, launch) => [
      "run",
      "--format",
      "json",
      ...tuningArgs("opencode", launch),
      ...(launch.permissions === "full" ? ["--auto"] : []),
      prompt ?? "",
    ],
    env: (launch): Record<string, string> => {
      const rules = opencodePermission(launch.permissions);
      return rules ? { OPENCODE_PERMISSION: JSON.stringify(rules) } : {};
    },
    argvCap: 8 * KiB,
  },
};

export interface Invocation {
  args: string[];
  /** Text written to the vendor's stdin, then closed; null: stdin is /dev/null. */
  stdin: string | null;
  env: Record<string, string>;
  files: Record<string, string>;
}

export function invocation(vendor: Vendor, prompt: string, launch = DEFAULT_LAUNCH): Invocation {
  const cli = VENDOR_CLI[vendor];
  const extra = { env: cli.env?.(launch) ?? {}, files: cli.files?.(launch) ?? {} };
  return cli.input === "stdin"
    ? { args: cli.args(null, launch), stdin: prompt, ...extra }
    : { args: cli.args(prompt, launch), stdin: null, ...extra };
}

/** The vendor's own context window judges the prompt (claude runs with claude-code's). */
export function vendorIde(vendor: Vendor): IdeEntry {
  return ideById(vendor === "claude" ? "claude-code" : vendor) ?? ideById("unknown")!;
}
