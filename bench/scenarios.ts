/**
 * What `deno task bench` times: every command an LLM calls again and again
 * in a workflow, each as one command line in a prepared project. A scenario
 * whose command is not in lib/cli/table.ts is skipped (hot.ts), so the list
 * may name commands that come later.
 */
import type { Scenario } from "./scenario.ts";
import { REQUEST_SCENARIOS } from "./request_scenarios.ts";
import { midSwarm, promptText, workspace } from "./setups.ts";
import { SUBAGENT_SCENARIOS } from "./subagent_scenarios.ts";

const SESSION_SCENARIOS: Scenario[] = [
  { name: "version", command: "", shown: "--version", args: ["--version"] },
  {
    name: "workspace-init",
    command: "workspace init",
    shown: "workspace init --json (again)",
    setup: workspace,
    args: ["workspace", "init", "--json"],
  },
  {
    name: "session-start",
    command: "session start",
    shown: "session start --json (again)",
    setup: workspace,
    args: ["session", "start", "--json"],
  },
  {
    name: "session-info",
    command: "session info",
    shown: "session info --active --json",
    setup: workspace,
    args: ["session", "info", "--active", "--json"],
  },
  {
    name: "presence",
    command: "skill presence",
    shown: "skill presence --json",
    setup: workspace,
    args: ["skill", "presence", "--json"],
  },
  {
    name: "presence-header",
    command: "skill presence",
    shown: "skill presence --header",
    setup: workspace,
    args: ["skill", "presence", "--header"],
  },
  {
    name: "presence-set",
    command: "skill presence:set",
    shown: "skill presence:set peaks-code --gate startup --json",
    setup: workspace,
    args: ["skill", "presence:set", "peaks-code", "--gate", "startup", "--json"],
  },
  {
    // Claude Code runs it after every turn; mid-swarm it shows the batch header.
    name: "statusline",
    command: "statusline render",
    shown: "statusline render < status JSON (mid-swarm)",
    setup: (tools) => midSwarm(tools),
    args: ["statusline", "render"],
    stdin: JSON.stringify({
      model: { display_name: "Opus" },
      context_window: { used_percentage: 41, context_window_size: 200000 },
    }),
  },
];

/**
 * `peaks hooks run` as the hosts run it: Claude Code on every Bash call, each sub-agent start, each
 * session start; bad input; OpenCode's plugin at its first model call. Timed in their own section
 * with many runs, for a p99.
 */
export const HOOK_SCENARIOS: Scenario[] = [
  {
    name: "hook-bash",
    command: "hooks run",
    shown: "hooks run --host claude-code --event PreToolUse < Bash call",
    setup: (tools) => midSwarm(tools, "pointer"),
    args: ["hooks", "run", "--host", "claude-code", "--event", "PreToolUse"],
    stdin: JSON.stringify({ tool_name: "Bash", tool_input: { command: "npm test" } }),
  },
  {
    name: "hook-agent",
    command: "hooks run",
    shown: "hooks run --host claude-code --event PreToolUse < Agent call (mid-swarm)",
    setup: (tools) => midSwarm(tools, "pointer"),
    args: ["hooks", "run", "--host", "claude-code", "--event", "PreToolUse"],
    stdin: (vars) =>
      JSON.stringify({
        tool_name: "Agent",
        tool_input: {
          prompt: `Run \`peaks sub-agent brief --record ${vars.record}\` and follow it.`,
        },
      }),
  },
  {
    name: "hook-session-start",
    command: "hooks run",
    shown: "hooks run --host claude-code --event SessionStart (mid-swarm)",
    setup: (tools) => midSwarm(tools, "pointer"),
    args: ["hooks", "run", "--host", "claude-code", "--event", "SessionStart"],
    stdin: JSON.stringify({ hook_event_name: "SessionStart", source: "resume" }),
  },
  {
    name: "hook-garbage",
    command: "hooks run",
    shown: "hooks run --host copilot --event preToolUse < garbage",
    setup: (tools) => midSwarm(tools, "pointer"),
    args: ["hooks", "run", "--host", "copilot", "--event", "preToolUse"],
    stdin: "}{ not json at all",
  },
  {
    name: "hook-opencode-start",
    command: "hooks run",
    shown: "hooks run --host opencode --event experimental.chat.system.transform (mid-swarm)",
    setup: (tools) => midSwarm(tools, "pointer"),
    args: ["hooks", "run", "--host", "opencode", "--event", "experimental.chat.system.transform"],
    stdin: JSON.stringify({ session_id: "ses_1", source: "startup" }),
  },
];

const PROJECT_SCENARIOS: Scenario[] = [
  {
    name: "context-check",
    command: "context check",
    shown: "context check --prompt-file <20 KB> --json",
    setup: async (tools) => {
      const vars = await workspace(tools);
      await Deno.writeTextFile(`${tools.project}/prompt.md`, promptText(20 * 1024));
      return vars;
    },
    args: ["context", "check", "--prompt-file", "prompt.md", "--json"],
  },
  {
    name: "scan-archetype",
    command: "scan archetype",
    shown: "scan archetype --json (demo sample project)",
    project: "sample",
    setup: workspace,
    args: ["scan", "archetype", "--json"],
  },
  {
    name: "doctor",
    command: "doctor",
    shown: "doctor --json",
    setup: (tools) => midSwarm(tools),
    args: ["doctor", "--json"],
  },
];

export const SCENARIOS: Scenario[] = [
  ...SESSION_SCENARIOS,
  ...REQUEST_SCENARIOS,
  ...SUBAGENT_SCENARIOS,
  ...PROJECT_SCENARIOS,
];
