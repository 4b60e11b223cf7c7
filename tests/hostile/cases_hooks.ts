/** Hostile cases: `peaks hooks` (install, uninstall, status, and the hook command itself). */
import { join } from "../../lib/infra/std.ts";
import { big, type CommandCases, recordAbs, symlinkOut, write } from "./model.ts";
import type { Fixture } from "./fixture.ts";

const localSettings = (fx: Fixture) => join(fx.root, ".claude", "settings.local.json");

/** The settings cases every editing verb shares. */
function settingsCases(verb: string): CommandCases["cases"] {
  return [
    {
      name: "settings file is a JSON array",
      setup: (fx) => write(localSettings(fx), "[]\n"),
      argv: () => ["hooks", verb],
      exit: 1,
      code: "SETTINGS_INVALID",
    },
    {
      name: "settings file is truncated",
      setup: (fx) => write(localSettings(fx), '{"hooks": {"PreToolUse": [{'),
      argv: () => ["hooks", verb],
      exit: 1,
      code: "SETTINGS_INVALID",
    },
    {
      name: "hooks is a string",
      setup: (fx) => write(localSettings(fx), '{"hooks": "peaks"}'),
      argv: () => ["hooks", verb],
      exit: 1,
      code: "SETTINGS_INVALID",
    },
    {
      name: "settings file is a symlink",
      setup: (fx) => symlinkOut(fx, localSettings(fx)),
      argv: () => ["hooks", verb],
      exit: [1, 2, 3],
      code: ["SYMLINK_REFUSED", "PATH_OUTSIDE_PROJECT"],
    },
    {
      name: ".gemini folder is a symlink out of the project",
      setup: (fx) => Deno.symlink(fx.outside, join(fx.root, ".gemini")),
      argv: () => ["hooks", verb, "--host", "gemini"],
      exit: [1, 2, 3],
    },
  ];
}

const RUN = ["hooks", "run", "--host", "claude-code", "--event", "PreToolUse"];

export const HOOKS_CASES: Record<string, CommandCases> = {
  "hooks install": {
    baseline: () => ["hooks", "install", "--dry-run"],
    cases: [
      ...settingsCases("install"),
      {
        name: "a scope the host does not have",
        argv: () => ["hooks", "install", "--host", "copilot", "--scope", "local"],
        exit: 1,
        code: "SCOPE_NOT_SUPPORTED",
      },
    ],
  },
  "hooks uninstall": {
    baseline: () => ["hooks", "uninstall", "--dry-run"],
    cases: settingsCases("uninstall"),
  },
  "hooks status": {
    baseline: () => ["hooks", "status"],
    cases: settingsCases("status").map((c) => ({ ...c, unchanged: true })),
  },
  "hooks run": {
    baseline: () => RUN,
    cases: [
      ...["}{", "null", "[]", '{"tool_name": ["Agent"]}', "\u0000\u0001", big(300_000, "[")]
        .map((stdin, i) => ({
          name: `garbage on stdin #${i + 1}`,
          argv: () => RUN,
          stdin,
          exit: 0,
        })),
      {
        name: "a pointer that climbs out of the records folder",
        argv: () => RUN,
        stdin: JSON.stringify({
          tool_name: "Agent",
          tool_input: { prompt: "Run `peaks sub-agent brief --record ../../../../etc/passwd`." },
        }),
        exit: 0,
        unchanged: true,
      },
      {
        name: "the record is broken",
        setup: (fx) => write(recordAbs(fx), "{nope"),
        argv: () => ["hooks", "run", "--host", "claude-code", "--event", "SubagentStop"],
        stdin: JSON.stringify({ agent_id: "a1", last_assistant_message: "bye" }),
        exit: 0,
      },
      {
        name: "read-only project",
        argv: () => ["hooks", "run", "--host", "claude-code", "--event", "SessionStart"],
        stdin: '{"source":"startup"}',
        readOnly: true,
        exit: 0,
      },
    ],
  },
};
