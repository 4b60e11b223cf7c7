/**
 * The shape of one host declaration (lib/hosts/<host>.ts). Every fact peaks
 * knows about an agent host lives in its file: how to recognise it, the tool
 * that starts a sub-agent in it, where it reads skills, how it names MCP
 * tools, what the peaks binary must be allowed to read and run for it. The
 * rest of lib reads these declarations and names no host fact itself.
 */

/** What a sub-agent tool call is built from. */
export interface SubAgentCall {
  /** `<role> for rid=<rid>` (or `<role>:<node> for rid=<rid>`). */
  description: string;
  /** A short name: the role, or `<role>-<node>` for a DAG node. */
  name: string;
  prompt: string;
}

/** An optional argument of a sub-agent tool that a per-role preference fills (model, effort). */
export interface TuningArg {
  /** The argument's name in the tool's schema. */
  key: string;
  /** The values the tool's schema allows, when it lists them; absent = any string. */
  values?: readonly string[];
}

export interface SubAgentTool {
  /** The tool's name as the host's model sees it. */
  tool: string;
  /** Other names of the same tool (older host versions). */
  aliases: string[];
  /** The tool namespace the host groups it in, when it has one. */
  namespace?: string;
  /** The argument that carries the prompt. */
  promptKey: string;
  /** The tool's arguments. */
  args: (call: SubAgentCall) => Record<string, unknown>;
  /** Observed in the real CLI at `version`; false = taken from the host's public docs. */
  verified: boolean;
  /** The host version the call was checked against (the npm package's), null when not on npm. */
  version: string | null;
  /** Where the fact comes from: the package observed, or the public doc's address. */
  source: string;
  /** What the orchestrator does after the call, when the result does not come back inline. */
  followUp?: string;
  /** How the sub-agent must end its turn when a plain final message is not enough. */
  finish?: string;
  /** The argument that picks the sub-agent's model (`models.<role>`); absent = the tool takes none. */
  model?: TuningArg;
  /** The argument that sets its reasoning effort (`effort.<role>`); absent = the tool takes none. */
  effort?: TuningArg;
  /** Arguments that make the host run the sub-agent in a git worktree of its own. */
  isolation?: Record<string, unknown>;
  /** peaks' own worktrees for this host's sub-agents go under the host's folder (Claude Code). */
  worktreesInHostFolder?: boolean;
}

export interface SkillsFolders {
  /** Folders under the project root the host reads skills from; peaks installs into the first. */
  project: string[];
  /** Folders under the home folder; peaks installs into the first. */
  user: string[];
  /** Seen listed in the real CLI's first model request. */
  verified: boolean;
  source: string;
}

/** A file where a host keeps MCP servers, and the key that holds them. */
export interface McpConfigFile {
  /** `project` files are relative to the project root, `user` files to the home folder. */
  scope: "project" | "user";
  path: string;
  format: "json" | "toml";
  /**
   * JSON: the dotted key of the object whose keys are server names
   * (`mcpServers`); `projects.<root>.mcpServers` reads the entry for this project.
   * TOML: the table prefix (`mcp_servers` for `[mcp_servers.<name>]`).
   */
  key: string;
}

export interface McpFacts {
  /** How an MCP tool's name looks to the model, `<server>` standing for the server (for the brief). */
  toolName: string;
  /** What each tool name of `<server>` starts with, or null when not known. */
  prefix: string | null;
  /** The host's own command that adds a stdio server, or null (edit its settings). */
  add: string | null;
  /** Where the servers are configured, as a reader would look for them. */
  config: string;
  /** The files `peaks capabilities` reads the servers from; empty when peaks reads none. */
  files: McpConfigFile[];
}

export type HookScope = "user" | "project" | "local";

/** One event peaks registers: the host's name for it and the tool matcher, when it has one. */
export interface HookEventSpec {
  event: string;
  matcher?: string;
}

/** The host's lifecycle hooks as peaks installs them (`peaks hooks`, the host's package). */
export interface HookFacts {
  /**
   * `claude`: settings `hooks` map of matcher groups; `copilot`: a `{version, hooks}` file of its
   * own; `plugin`: no command hooks, a plugin module of peaks' own runs `peaks hooks run` for the
   * host's hooks (`events` then names them).
   */
  dialect: "claude" | "copilot" | "plugin";
  /** Settings file per scope: `~` is the home folder, otherwise relative to the project root. */
  files: Partial<Record<HookScope, string>>;
  /** The hook `timeout` unit. */
  timeoutUnit: "s" | "ms";
  events: HookEventSpec[];
  /** Tools that start a sub-agent (their input carries the prompt): the sub-agent tool and its aliases. */
  subAgentTools: string[];
  shellTools: string[];
  /** How a tool call is refused. */
  deny: "hook-specific" | "top-level" | "decision";
  /** How text is added to the orchestrator's context at session start. */
  context: "hook-specific" | "top-level" | "both";
  /** A step the user still takes before the hooks run. */
  note?: string;
  /** The host version the hooks were observed with. */
  version: string;
}

/** The events a host with Claude Code's hook names fires for peaks, given its tool names. */
export function claudeHookEvents(agent: string, shell: string): HookEventSpec[] {
  return [
    { event: "SessionStart" },
    { event: "PreToolUse", matcher: `${agent}|${shell}` },
    { event: "PostToolUse", matcher: agent },
    { event: "PostToolUseFailure", matcher: agent },
    { event: "SubagentStart" },
    { event: "SubagentStop" },
  ];
}

export interface HostDecl {
  id: string;
  /** The host's name in prose. */
  name: string;
  /** Any of these set in the environment means the call comes from this host. */
  envVars: string[];
  /** A project folder that marks this host's configuration. */
  projectDir: string | null;
  /** Default context window of a sub-agent in this host, in tokens. */
  contextWindow: number;
  /** The in-process sub-agent tool, or null when none is known. */
  subAgent: SubAgentTool | null;
  /** Where the host reads skills, or null when unknown. */
  skills: SkillsFolders | null;
  mcp: McpFacts | null;
  /** The host shows a status line peaks can feed. */
  statusLine: boolean;
  /** Lifecycle hooks peaks installs in this host, or null when it has no command hooks. */
  hooks: HookFacts | null;
  /** The vendor CLI that runs a detached sub-agent, when this host ships one. */
  vendor: string | null;
  /** How peaks ships into this host beyond skills (plugin, extension), or null. */
  packaging: string | null;
  /** What the peaks binary must be granted for this host: env names read, programs run. */
  permissions: { env: string[]; run: string[] };
}
