/**
 * The IDE table: one entry per agent host. Dispatch, the prompt budget and
 * detection all read it; adding an IDE is adding one entry here.
 */
import type { Env } from "../infra/command/ctx.ts";
import { join } from "../infra/std.ts";

export interface InProcessTool {
  tool: string;
  /** Other names of the same tool (older host versions). */
  aliases: string[];
  verified: boolean;
  /**
   * The tool's input: `task` is `{subagent_type, description, prompt}` (Claude Code's Agent and
   * the hosts modelled on it); `message` is `{message}` (Codex's spawn_agent).
   */
  input: "task" | "message";
  /** The tool namespace the host groups it in (Codex: multi_agent_v1). */
  namespace?: string;
}

export interface IdeEntry {
  id: string;
  /** The in-process sub-agent tool, or null when the host has none. */
  inProcess: null | InProcessTool;
  /** Default context window of a sub-agent in this host, in tokens. */
  contextWindow: number;
  /** Any of these set in the environment means the call comes from this host. */
  envVars: string[];
  /** A project folder that marks this host's configuration. */
  projectDir: string | null;
}

/** The Task-shaped tool of hosts modelled on Claude Code, not verified against a real host. */
const TASK = (verified: boolean): InProcessTool => ({
  tool: "Task",
  aliases: [],
  verified,
  input: "task",
});

export const IDES: readonly IdeEntry[] = [
  {
    id: "claude-code",
    // Claude Code 2.x calls it Agent (verified with 2.1.328); 1.x called it Task.
    inProcess: { tool: "Agent", aliases: ["Task"], verified: true, input: "task" },
    contextWindow: 200_000,
    envVars: ["CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"],
    projectDir: ".claude",
  },
  {
    id: "trae",
    inProcess: TASK(false),
    contextWindow: 128_000,
    envVars: ["TRAE_AI_SHELL_ID", "TRAE_SESSION_ID"],
    projectDir: ".trae",
  },
  {
    id: "cursor",
    inProcess: TASK(false),
    contextWindow: 200_000,
    envVars: ["CURSOR_TRACE_ID", "CURSOR_AGENT"],
    projectDir: ".cursor",
  },
  {
    id: "qoder",
    inProcess: TASK(false),
    contextWindow: 128_000,
    envVars: [],
    projectDir: ".qoder",
  },
  {
    id: "lingma",
    inProcess: TASK(false),
    contextWindow: 128_000,
    envVars: [],
    projectDir: ".lingma",
  },
  { id: "hermes", inProcess: TASK(false), contextWindow: 128_000, envVars: [], projectDir: null },
  { id: "openclaw", inProcess: TASK(false), contextWindow: 128_000, envVars: [], projectDir: null },
  {
    id: "codex",
    // Codex 0.169's multi-agent tools (verified with 0.169.0): spawn_agent, then wait_agent.
    inProcess: {
      tool: "spawn_agent",
      aliases: [],
      verified: true,
      input: "message",
      namespace: "multi_agent_v1",
    },
    contextWindow: 272_000,
    envVars: ["CODEX_SANDBOX", "CODEX_MANAGED_BY_NPM", "CODEX_THREAD_ID"],
    projectDir: ".codex",
  },
  {
    id: "gemini",
    inProcess: null,
    contextWindow: 1_000_000,
    envVars: ["GEMINI_CLI"],
    projectDir: ".gemini",
  },
  {
    id: "opencode",
    inProcess: null,
    contextWindow: 200_000,
    envVars: ["OPENCODE"],
    projectDir: ".opencode",
  },
  { id: "zcode", inProcess: null, contextWindow: 128_000, envVars: [], projectDir: null },
  { id: "unknown", inProcess: null, contextWindow: 128_000, envVars: [], projectDir: null },
];

export const IDE_IDS = IDES.map((ide) => ide.id) as [string, ...string[]];

/** Environment detection order (spec order); project folders are checked after it. */
const ENV_ORDER = ["claude-code", "trae", "cursor", "codex", "gemini", "opencode"];
const DIR_ORDER = [
  ".claude",
  ".trae",
  ".cursor",
  ".codex",
  ".qoder",
  ".lingma",
  ".gemini",
  ".opencode",
];

export function ideById(id: string): IdeEntry | undefined {
  return IDES.find((ide) => ide.id === id);
}

export interface DetectedIde {
  ide: IdeEntry;
  source: "flag" | "env" | "project-dir" | "assumed";
  /** The variable or folder that decided, when one did. */
  evidence: string | null;
}

/** `--ide` > environment > project folders > claude-code (assumed, with a warning upstream). */
export async function detectIde(
  env: Env,
  projectRoot: string,
  explicit?: string,
): Promise<DetectedIde> {
  if (explicit) {
    const ide = ideById(explicit);
    if (ide) return { ide, source: "flag", evidence: null };
  }
  for (const id of ENV_ORDER) {
    const ide = ideById(id)!;
    const hit = ide.envVars.find((name) => env.get(name));
    if (hit) return { ide, source: "env", evidence: hit };
  }
  for (const dir of DIR_ORDER) {
    try {
      if ((await Deno.stat(join(projectRoot, dir))).isDirectory) {
        const ide = IDES.find((entry) => entry.projectDir === dir)!;
        return { ide, source: "project-dir", evidence: dir };
      }
    } catch {
      // not there
    }
  }
  return { ide: ideById("claude-code")!, source: "assumed", evidence: null };
}
