/**
 * The command table. Each entry loads its module with a string-literal
 * dynamic import, so a call loads only its own command's code and
 * `deno compile` still embeds every module. Help for groups and the command
 * list comes from here without loading any command.
 */
import type { CommandEntry } from "./entry.ts";

export type { CommandEntry };

export const GROUPS: Record<string, string> = {
  workspace: "Create and inspect the project's .peaks workspace.",
  session: "Sessions: the active one, the list, titles.",
  skill: "Skill presence: which skill, mode and gate are active.",
  statusline: "The Claude Code status line: install, remove, render.",
  hooks: "Host lifecycle hooks: sub-agents opened and closed, the resume line, commits refused.",
  permissions: "The host's allow rule that lets the agent run peaks without asking.",
  "sub-agent":
    "Dispatch sub-agents and track them: records, heartbeats, status, artefacts, channel.",
  context: "Prompt budget checks for sub-agent prompts.",
  swarm: "Plan and converge the parallel design/planning/test-case swarm.",
  request: "Role requests: templates, lint, state transitions with gates.",
  scan: "Read the project: archetype, stack, legacy constraints.",
  standards: "CLAUDE.md / AGENTS.md standards drawn from the scan.",
  preferences: "Project preferences (schema-checked).",
  skills: "Install, verify and remove the bundled agent skills.",
};

/**
 * Words that stand for a global flag when they come first: `peaks help`,
 * `peaks help <command>` (= `peaks <command> --help`), `peaks version` and
 * `peaks -v` (= `peaks --version`). Help, completions and the reference list them.
 */
export const ALIASES: { word: string; flag: "--help" | "--version"; summary: string }[] = [
  {
    word: "help",
    flag: "--help",
    summary: "Same as --help; `peaks help <command>` is `peaks <command> --help`.",
  },
  { word: "version", flag: "--version", summary: "Same as --version." },
  { word: "-v", flag: "--version", summary: "Same as --version." },
];

export const COMMANDS: CommandEntry[] = [
  {
    name: "workspace init",
    summary: "Create the .peaks workspace and bind a session (idempotent).",
    load: () => import("../commands/workspace/init.ts"),
  },
  {
    name: "session start",
    summary: "Start or resume a skill's session: workspace, presence, open requests.",
    load: () => import("../commands/session/start.ts"),
  },
  {
    name: "session info",
    summary: "Show the active session (--active) or a given one.",
    load: () => import("../commands/session/info.ts"),
  },
  {
    name: "session list",
    summary: "List every session, newest first, with titles.",
    load: () => import("../commands/session/list.ts"),
  },
  {
    name: "session title",
    summary: "Set a session's title (1-120 characters).",
    load: () => import("../commands/session/title.ts"),
  },
  {
    name: "skill presence",
    summary: "Show the active skill, mode, gate and context reading.",
    load: () => import("../commands/skill/presence.ts"),
  },
  {
    name: "skill presence:set",
    summary: "Record the active skill, mode, gate and role.",
    load: () => import("../commands/skill/presence_set.ts"),
  },
  {
    name: "statusline install",
    summary: "Add the peaks status line to Claude Code settings.",
    load: () => import("../commands/statusline/install.ts"),
  },
  {
    name: "statusline uninstall",
    summary: "Remove the peaks status line from Claude Code settings.",
    load: () => import("../commands/statusline/uninstall.ts"),
  },
  {
    name: "statusline render",
    summary: "Print the status line from Claude Code's JSON on stdin.",
    load: () => import("../commands/statusline/render.ts"),
  },
  {
    name: "permissions install",
    summary: "Allow Bash(peaks:*) in Claude Code's settings (opt-in, comment-preserving).",
    load: () => import("../commands/permissions/install.ts"),
  },
  {
    name: "permissions uninstall",
    summary: "Remove peaks' allow rule from Claude Code's settings.",
    load: () => import("../commands/permissions/uninstall.ts"),
  },
  {
    name: "hooks install",
    summary: "Add peaks' lifecycle hooks to a host's settings (idempotent, keeps other hooks).",
    load: () => import("../commands/hooks/install.ts"),
  },
  {
    name: "hooks uninstall",
    summary: "Remove peaks' lifecycle hooks from a host's settings; other hooks stay.",
    load: () => import("../commands/hooks/uninstall.ts"),
  },
  {
    name: "hooks status",
    summary: "Show which of peaks' lifecycle hooks a host's settings hold.",
    load: () => import("../commands/hooks/status.ts"),
  },
  {
    name: "hooks run",
    summary: "Handle one host hook event from stdin (always exits 0).",
    load: () => import("../commands/hooks/run.ts"),
  },
  // -- sub-agent --
  {
    name: "sub-agent dispatch",
    summary: "Record a sub-agent and return the IDE tool call that starts it.",
    load: () => import("../commands/sub-agent/dispatch.ts"),
  },
  {
    name: "sub-agent brief",
    summary: "Print the full prompt stored in a dispatch record (--brief pointer).",
    load: () => import("../commands/sub-agent/brief.ts"),
  },
  {
    name: "sub-agent heartbeat",
    summary: "Report a sub-agent's progress into its record.",
    load: () => import("../commands/sub-agent/heartbeat.ts"),
  },
  {
    name: "sub-agent list",
    summary: "List dispatch records with live status (stale, never-started).",
    load: () => import("../commands/sub-agent/list.ts"),
  },
  {
    name: "sub-agent status",
    summary: "One status line for a batch of sub-agents.",
    load: () => import("../commands/sub-agent/status.ts"),
  },
  {
    name: "sub-agent watch",
    summary: "Poll a batch, print its status line on change, end when all finish.",
    load: () => import("../commands/sub-agent/watch.ts"),
  },
  {
    name: "sub-agent finalize",
    summary: "Close records with an outcome and audit artefacts and commits.",
    load: () => import("../commands/sub-agent/finalize.ts"),
  },
  {
    name: "sub-agent artifact",
    summary: "Register an artefact (path, size, sha256, summary) in a record.",
    load: () => import("../commands/sub-agent/artifact.ts"),
  },
  {
    name: "sub-agent share",
    summary: "Post a small JSON value on the batch's shared channel.",
    load: () => import("../commands/sub-agent/share.ts"),
  },
  {
    name: "sub-agent shared-read",
    summary: "Read the batch's shared channel (key glob, since).",
    load: () => import("../commands/sub-agent/shared_read.ts"),
  },
  {
    name: "sub-agent cleanup",
    summary: "Archive finished records; --orphans lists or stops orphan detached runs.",
    load: () => import("../commands/sub-agent/cleanup.ts"),
  },
  {
    name: "sub-agent repair",
    summary: "Rebuild a batch file from its members' records (repairs an unreadable batch).",
    load: () => import("../commands/sub-agent/repair.ts"),
  },
  {
    name: "sub-agent merge",
    summary: "Retry a slice's merge or decide its conflict (--keep main|slice, --redo).",
    load: () => import("../commands/sub-agent/merge.ts"),
  },
  {
    name: "sub-agent supervise",
    summary: "Run a detached sub-agent's vendor CLI (started by dispatch --mode detached).",
    load: () => import("../commands/sub-agent/supervise.ts"),
    hidden: true,
  },
  // -- context --
  {
    name: "context check",
    summary: "Budget verdict for a sub-agent prompt, optionally after headroom compression.",
    load: () => import("../commands/context/check.ts"),
  },
  // -- swarm --
  {
    name: "swarm plan",
    summary: "Decide the swarm for a confirmed PRD; write the plan and its DAG.",
    load: () => import("../commands/swarm/plan.ts"),
  },
  {
    name: "swarm slices",
    summary: "Check RD's implementation slice DAG and give the --from-dag call that runs it.",
    load: () => import("../commands/swarm/slices.ts"),
  },
  {
    name: "swarm converge",
    summary: "Gate B: check each member's artefacts and record, apply the degradation table.",
    load: () => import("../commands/swarm/converge.ts"),
  },
  // -- request --
  {
    name: "request init",
    summary: "Create a role request from its template (preview unless --apply).",
    load: () => import("../commands/request/init.ts"),
  },
  {
    name: "request show",
    summary: "Show a request: state, body, history, what the next transition needs.",
    load: () => import("../commands/request/show.ts"),
  },
  {
    name: "request close",
    summary: "End a finished request: show the change, propose a commit, record the answer.",
    load: () => import("../commands/request/close.ts"),
  },
  {
    name: "request list",
    summary: "List the session's requests with their states.",
    load: () => import("../commands/request/list.ts"),
  },
  {
    name: "request lint",
    summary: "Lint a request: placeholders and '- ...' bullets are errors.",
    load: () => import("../commands/request/lint.ts"),
  },
  {
    name: "request transition",
    summary: "Move a request along its state graph, through the lint and prerequisite gates.",
    load: () => import("../commands/request/transition.ts"),
  },
  // -- scan / standards / upgrade --
  {
    name: "scan archetype",
    summary: "Detect archetype, stack, frontendOnly and legacy constraints.",
    load: () => import("../commands/scan/archetype.ts"),
  },
  {
    name: "scan existing-system",
    summary: "Extract naming, layout, service-layer and hooks conventions for legacy code.",
    load: () => import("../commands/scan/existing_system.ts"),
  },
  {
    name: "standards init",
    summary: "Create CLAUDE.md / AGENTS.md standards from the scan (dry-run unless --apply).",
    load: () => import("../commands/standards/init.ts"),
  },
  {
    name: "standards update",
    summary: "Refresh the peaks standards block; never touches text outside it.",
    load: () => import("../commands/standards/update.ts"),
  },
  {
    name: "capabilities",
    summary: "Which design, browser and docs tools the host has here, and how to add one.",
    load: () => import("../commands/capabilities/capabilities.ts"),
  },
  {
    name: "upgrade",
    summary: "Detect a peaks 1.x workspace (--detect-1x) or migrate it (--to 2.0 --auto).",
    load: () => import("../commands/upgrade/upgrade.ts"),
  },
  // -- preferences --
  {
    name: "preferences get",
    summary: "Show the project's preferences, or one key.",
    load: () => import("../commands/preferences/get.ts"),
  },
  {
    name: "preferences set",
    summary: "Set one preference (schema-checked; preview unless --apply).",
    load: () => import("../commands/preferences/set.ts"),
  },
  {
    name: "preferences reset",
    summary: "Remove one preference or reset them all (preview unless --apply).",
    load: () => import("../commands/preferences/reset.ts"),
  },
  // -- skills / doctor / completions --
  {
    name: "skills install",
    summary: "Install the bundled skills into agents' skills folders (with a manifest).",
    load: () => import("../commands/skills/install.ts"),
  },
  {
    name: "skills uninstall",
    summary: "Remove the skills peaks installed; edited files are kept.",
    load: () => import("../commands/skills/uninstall.ts"),
  },
  {
    name: "skills list",
    summary: "Show installed skills per agent and scope, with their state.",
    load: () => import("../commands/skills/list.ts"),
  },
  {
    name: "skills verify",
    summary: "Compare installed skills with the source and the manifest (exit 3 on drift).",
    load: () => import("../commands/skills/verify.ts"),
  },
  {
    name: "doctor",
    summary: "Check the install and the project; each finding comes with its fix (read-only).",
    load: () => import("../commands/doctor/doctor.ts"),
  },
  {
    name: "completions",
    summary: "Print a shell completion script: bash, zsh, fish or powershell.",
    // Completions describe the table itself, so the table hands itself over instead of being imported.
    load: () =>
      import("./completions/command.ts").then((m) => ({
        default: m.completionsCommand(COMMANDS, GROUPS, ALIASES),
      })),
  },
  {
    name: "debug run-probe",
    summary: "Show that the binary refuses to start a program its permissions do not list.",
    load: () => import("../commands/debug/run_probe.ts"),
    hidden: true,
  },
];

export function findCommand(words: string[]): { entry: CommandEntry; used: number } | undefined {
  if (words.length >= 2) {
    const two = `${words[0]} ${words[1]}`;
    const entry = COMMANDS.find((c) => c.name === two);
    if (entry) return { entry, used: 2 };
  }
  if (words.length >= 1) {
    const entry = COMMANDS.find((c) => c.name === words[0]);
    if (entry) return { entry, used: 1 };
  }
  return undefined;
}

/** A word names a group when at least one command lives under it. */
export function isGroup(word: string): boolean {
  return COMMANDS.some((c) => c.name.startsWith(`${word} `));
}

export function groupCommands(group: string): CommandEntry[] {
  return COMMANDS.filter((c) => c.name.startsWith(`${group} `));
}

export function dottedName(name: string): string {
  return name.replace(/ /g, ".");
}
