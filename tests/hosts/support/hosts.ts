/**
 * How each real host is pointed at its loopback stand-in (environment and
 * config files in the private HOME), which API family it speaks, and the
 * names and inputs of its own tools, as verified against the pinned CLIs.
 */
import { join } from "../../../lib/infra/std.ts";
import { anthropic, chat, gemini, responses } from "./families.ts";
import type { HostId } from "./install.ts";
import type { Sandbox } from "./sandbox.ts";
import type { Call, Family, StandIn } from "./standin.ts";

export const API_KEY = "test-key";

export interface HostAdapter {
  id: HostId;
  family: Family;
  /** Writes the host's config into the sandbox's HOME and returns the variables that reach the stand-in. */
  configure(sandbox: Sandbox, standIn: StandIn): Promise<Record<string, string>>;
  /** The host's shell tool call for a command line. */
  shell(command: string): Call;
  /** The host's own file-writing tool call (absolute path). */
  write(path: string, content: string): Call;
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await Deno.mkdir(path.replace(/\/[^/]*$/, ""), { recursive: true });
  await Deno.writeTextFile(path, JSON.stringify(value, null, 2) + "\n");
}

export const CLAUDE: HostAdapter = {
  id: "claude",
  family: anthropic,
  async configure(sandbox, standIn) {
    // Onboarding done, so neither print nor interactive mode stops at a first-run screen.
    await writeJson(join(sandbox.home, ".claude.json"), {
      hasCompletedOnboarding: true,
      numStartups: 1,
    });
    return {
      ANTHROPIC_BASE_URL: standIn.origin,
      ANTHROPIC_API_KEY: API_KEY,
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    };
  },
  shell: (command) => ({ name: "Bash", input: { command, description: "run a command" } }),
  write: (path, content) => ({ name: "Write", input: { file_path: path, content } }),
};

export const CODEX: HostAdapter = {
  id: "codex",
  family: responses,
  async configure(sandbox, standIn) {
    const config = [
      'model = "stand-in"',
      'model_provider = "standin"',
      "",
      "[model_providers.standin]",
      'name = "stand-in"',
      `base_url = "${standIn.origin}/v1"`,
      'wire_api = "responses"',
      'env_key = "OPENAI_API_KEY"',
      // Codex retries a failed request five times by default; the outcome is the same with none.
      "request_max_retries = 0",
      "stream_max_retries = 0",
      "",
    ].join("\n");
    await Deno.writeTextFile(join(sandbox.home, ".codex", "config.toml"), config);
    return { OPENAI_API_KEY: API_KEY };
  },
  shell: (command) => ({ name: "exec_command", input: { cmd: command } }),
  // This codex build offers no patch tool to an unknown model: files are written through the shell.
  // The write waits a second first: codex 0.169's `exec --json` often reports no item at all for a
  // command that ends at once (a bare `printf` redirect: 17 of 18 runs, though it ran and the model
  // saw its output), and the read-only case needs the refused write in those events (docs/hosts.md).
  write: (path, content) => ({
    name: "exec_command",
    input: { cmd: `sleep 1; printf '%s' '${content.replaceAll("'", "'\\''")}' > '${path}'` },
  }),
};

export const GEMINI: HostAdapter = {
  id: "gemini",
  family: gemini,
  async configure(sandbox, standIn) {
    await writeJson(join(sandbox.home, ".gemini", "settings.json"), {
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true, maxAttempts: 1 },
    });
    return {
      GEMINI_API_KEY: API_KEY,
      GOOGLE_GEMINI_BASE_URL: standIn.origin,
    };
  },
  shell: (command) => ({ name: "run_shell_command", input: { command } }),
  write: (path, content) => ({ name: "write_file", input: { file_path: path, content } }),
};

/** OpenCode's built-in Anthropic provider, pointed at the stand-in by its base URL. */
export const OPENCODE: HostAdapter = {
  id: "opencode",
  family: anthropic,
  async configure(sandbox, standIn) {
    await writeJson(join(sandbox.home, ".config", "opencode", "opencode.json"), {
      provider: {
        anthropic: { options: { baseURL: `${standIn.origin}/v1`, apiKey: API_KEY } },
      },
      model: "anthropic/claude-sonnet-4-5",
      autoupdate: false,
      share: "disabled",
    });
    return { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" };
  },
  shell: (command) => ({ name: "bash", input: { command, description: "run a command" } }),
  write: (path, content) => ({ name: "write", input: { filePath: path, content } }),
};

/** Copilot CLI's bring-your-own-key mode, Anthropic wire format. */
export const COPILOT: HostAdapter = {
  id: "copilot",
  family: anthropic,
  configure(_sandbox, standIn) {
    return Promise.resolve({
      COPILOT_PROVIDER_BASE_URL: standIn.origin,
      COPILOT_PROVIDER_TYPE: "anthropic",
      COPILOT_PROVIDER_API_KEY: API_KEY,
      COPILOT_MODEL: "claude-sonnet-4.5",
    });
  },
  shell: (command) => ({ name: "bash", input: { command, description: "run a command" } }),
  write: (path, content) => ({ name: "create", input: { path, file_text: content } }),
};

/** Qwen Code with its OpenAI-compatible auth, pointed at the chat-completions stand-in. */
export const QWEN: HostAdapter = {
  id: "qwen",
  family: chat,
  configure(_sandbox, standIn) {
    return Promise.resolve({
      OPENAI_BASE_URL: `${standIn.origin}/v1`,
      OPENAI_API_KEY: API_KEY,
      OPENAI_MODEL: "stand-in",
    });
  },
  shell: (command) => ({ name: "run_shell_command", input: { command } }),
  write: (path, content) => ({ name: "write_file", input: { file_path: path, content } }),
};

export const ADAPTERS: Partial<Record<HostId, HostAdapter>> = {
  claude: CLAUDE,
  codex: CODEX,
  gemini: GEMINI,
  opencode: OPENCODE,
  copilot: COPILOT,
  qwen: QWEN,
};
