/** Hostile cases: workspace, session, skill presence, statusline, permissions. */
import { join } from "../../lib/infra/std.ts";
import {
  big,
  bindingFile,
  type CommandCases,
  dropField,
  extraField,
  preferencesFile,
  presenceFile,
  sessionDir,
  settingsFile,
  symlinkOut,
  truncate,
  UNICODE,
  write,
  wrongVersion,
} from "./model.ts";

const localSettings = (fx: Parameters<typeof settingsFile>[0]) =>
  join(fx.root, ".claude", "settings.local.json");

export const SESSION_CASES: Record<string, CommandCases> = {
  "workspace init": {
    baseline: () => ["workspace", "init"],
    cases: [
      {
        name: ".peaks is a symlink out of the project",
        setup: async (fx) => {
          await Deno.rename(join(fx.root, ".peaks"), join(fx.root, "peaks-moved"));
          await Deno.symlink(fx.outside, join(fx.root, ".peaks"));
        },
        argv: () => ["workspace", "init"],
        exit: 1,
        code: "SYMLINK_REFUSED",
      },
      {
        name: "truncated session binding",
        setup: (fx) => truncate(bindingFile(fx)),
        argv: () => ["workspace", "init"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "session id with a .. segment",
        argv: () => ["workspace", "init", "--session-id", "../escape"],
        exit: 2,
        code: "INVALID_IDENTIFIER",
      },
      {
        name: "read-only project without a workspace",
        setup: (fx) => Deno.remove(join(fx.root, ".peaks"), { recursive: true }),
        argv: () => ["workspace", "init"],
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
    ],
  },
  "session start": {
    baseline: () => ["session", "start", "--skill", "peaks-code"],
    cases: [
      {
        name: ".peaks is a symlink out of the project",
        setup: async (fx) => {
          await Deno.rename(join(fx.root, ".peaks"), join(fx.root, "peaks-moved"));
          await Deno.symlink(fx.outside, join(fx.root, ".peaks"));
        },
        argv: () => ["session", "start"],
        exit: 1,
        code: "SYMLINK_REFUSED",
      },
      {
        name: "truncated session binding",
        setup: (fx) => truncate(bindingFile(fx)),
        argv: () => ["session", "start"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "presence that is a JSON array is set aside and replaced",
        setup: (fx) => write(presenceFile(fx), "[1,2,3]"),
        argv: () => ["session", "start"],
        exit: 0,
      },
      {
        name: "presence that is a symlink out of the project (set aside, never followed)",
        setup: (fx) => symlinkOut(fx, presenceFile(fx)),
        argv: () => ["session", "start"],
        exit: [0, 1],
      },
      {
        name: "preferences of 2 MB",
        setup: (fx) => write(preferencesFile(fx), `{"swarmMode":"${big(2_000_000)}"}`),
        argv: () => ["session", "start"],
        exit: [0, 1],
      },
      {
        name: "a request file that is a symlink out of the project",
        setup: (fx) => symlinkOut(fx, join(sessionDir(fx), "prd", "requests", "009-out.md")),
        argv: () => ["session", "start"],
        exit: [0, 1],
      },
      {
        name: "skill name with a path",
        argv: () => ["session", "start", "--skill", "../peaks-code"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "session id with a .. segment",
        argv: () => ["session", "start", "--session-id", "../escape"],
        exit: 2,
        code: "INVALID_IDENTIFIER",
      },
    ],
  },
  "session info": {
    baseline: () => ["session", "info", "--active"],
    cases: [
      {
        name: "session meta with a missing field",
        setup: (fx) => dropField(join(sessionDir(fx), "session.json"), "createdAt"),
        argv: () => ["session", "info", "--active"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "binding that is a JSON array",
        setup: (fx) => write(bindingFile(fx), "[1,2,3]"),
        argv: () => ["session", "info", "--active"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "session id that escapes",
        argv: () => ["session", "info", "../../etc"],
        exit: 2,
        code: "INVALID_IDENTIFIER",
      },
    ],
  },
  "session list": {
    baseline: () => ["session", "list"],
    cases: [
      {
        name: "one session meta is truncated",
        setup: (fx) => truncate(join(sessionDir(fx), "session.json")),
        argv: () => ["session", "list"],
        exit: [0, 1],
        unchanged: true,
      },
      {
        name: "limit is not a number",
        argv: () => ["session", "list", "--limit", "many"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
    ],
  },
  "session title": {
    baseline: (fx) => ["session", "title", fx.sid, "Login", "page"],
    cases: [
      ...Object.entries(UNICODE).map(([kind, text]) => ({
        name: `title with ${kind} text`,
        argv: (fx: { sid: string }) => ["session", "title", fx.sid, text],
        exit: [0, 2],
      })),
      {
        name: "title with a control character",
        argv: (fx) => ["session", "title", fx.sid, "bad\u0007title"],
        exit: 2,
      },
      {
        name: "title over 120 characters",
        argv: (fx) => ["session", "title", fx.sid, big(121)],
        exit: 2,
      },
      {
        name: "unknown session",
        argv: () => ["session", "title", "2020-01-01-session-000000", "x"],
        exit: 1,
        code: "SESSION_NOT_FOUND",
      },
      {
        name: "read-only project",
        argv: (fx) => ["session", "title", fx.sid, "A title"],
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
    ],
  },
  "skill presence": {
    baseline: () => ["skill", "presence"],
    cases: [
      {
        name: "presence with a wrong version",
        setup: (fx) => wrongVersion(presenceFile(fx)),
        argv: () => ["skill", "presence"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "presence that is a string",
        setup: (fx) => write(presenceFile(fx), '"full-auto"'),
        argv: () => ["skill", "presence", "--header"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "presence is a symlink out of the project",
        setup: (fx) => symlinkOut(fx, presenceFile(fx)),
        argv: () => ["skill", "presence"],
        exit: [0, 1],
        unchanged: true,
      },
    ],
  },
  "skill presence:set": {
    baseline: () => ["skill", "presence:set", "peaks-code", "--mode", "swarm", "--gate", "g1"],
    cases: [
      {
        name: "unknown mode",
        argv: () => ["skill", "presence:set", "peaks-code", "--mode", "yolo"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "gate with emoji and RTL text",
        argv: () => ["skill", "presence:set", "peaks-code", "--gate", UNICODE.emoji + UNICODE.rtl],
        exit: [0, 2],
      },
      {
        name: "presence with extra fields is rewritten cleanly or refused",
        setup: (fx) => extraField(presenceFile(fx)),
        argv: () => ["skill", "presence:set", "peaks-code"],
        exit: [0, 1],
      },
      {
        name: "presence is a symlink out of the project: replaced, never followed",
        setup: (fx) => symlinkOut(fx, presenceFile(fx)),
        argv: () => ["skill", "presence:set", "peaks-code"],
        exit: [0, 1],
      },
      {
        name: "read-only project",
        argv: () => ["skill", "presence:set", "peaks-rd"],
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
    ],
  },
  "statusline install": {
    baseline: () => ["statusline", "install", "--dry-run"],
    cases: [
      {
        name: "settings file is a JSON array",
        setup: (fx) => write(settingsFile(fx), "[]\n"),
        argv: () => ["statusline", "install"],
        exit: [1, 3],
      },
      {
        name: "settings file is truncated",
        setup: (fx) => write(settingsFile(fx), '{"model": "x", "perm'),
        argv: () => ["statusline", "install"],
        exit: [1, 3],
      },
      {
        name: "settings file is a symlink",
        setup: (fx) => symlinkOut(fx, settingsFile(fx)),
        argv: () => ["statusline", "install"],
        exit: [1, 2, 3],
        code: ["SYMLINK_REFUSED", "PATH_OUTSIDE_PROJECT"],
      },
      {
        name: ".claude folder is a symlink out of the project",
        setup: (fx) => Deno.symlink(fx.outside, join(fx.root, ".claude")),
        argv: () => ["statusline", "install"],
        exit: [1, 2, 3],
      },
      {
        name: "oversized settings file",
        setup: (fx) => write(settingsFile(fx), `{"pad":"${big(9 * 1024 * 1024)}"}`),
        argv: () => ["statusline", "install"],
        exit: [0, 1, 3],
      },
    ],
  },
  "statusline uninstall": {
    baseline: () => ["statusline", "uninstall", "--dry-run"],
    cases: [
      {
        name: "settings file is a number",
        setup: (fx) => write(settingsFile(fx), "42"),
        argv: () => ["statusline", "uninstall"],
        exit: [0, 1, 3],
      },
      {
        name: "settings file is a symlink",
        setup: (fx) => symlinkOut(fx, settingsFile(fx)),
        argv: () => ["statusline", "uninstall"],
        exit: [1, 2, 3],
        code: ["SYMLINK_REFUSED", "PATH_OUTSIDE_PROJECT"],
      },
      {
        name: "user scope settings are truncated",
        setup: (fx) => write(join(fx.home, ".claude", "settings.json"), '{"statusLine": {'),
        argv: () => ["statusline", "uninstall", "--scope", "user"],
        exit: [1, 3],
      },
    ],
  },
  "permissions install": {
    baseline: () => ["permissions", "install", "--dry-run"],
    cases: [
      {
        name: "local settings file is a JSON array",
        setup: (fx) => write(localSettings(fx), "[]\n"),
        argv: () => ["permissions", "install"],
        exit: 1,
        code: "SETTINGS_INVALID",
      },
      {
        name: "local settings file is truncated",
        setup: (fx) => write(localSettings(fx), '{"permissions": {"allow": ["Bash(git'),
        argv: () => ["permissions", "install"],
        exit: 1,
        code: "SETTINGS_INVALID",
      },
      {
        name: "permissions.allow is a string",
        setup: (fx) => write(localSettings(fx), '{"permissions": {"allow": "Bash(peaks:*)"}}'),
        argv: () => ["permissions", "install"],
        exit: 1,
        code: "SETTINGS_INVALID",
      },
      {
        name: "local settings file is a symlink",
        setup: (fx) => symlinkOut(fx, localSettings(fx)),
        argv: () => ["permissions", "install"],
        exit: [1, 2, 3],
        code: ["SYMLINK_REFUSED", "PATH_OUTSIDE_PROJECT"],
      },
      {
        name: ".claude folder is a symlink out of the project",
        setup: (fx) => Deno.symlink(fx.outside, join(fx.root, ".claude")),
        argv: () => ["permissions", "install", "--scope", "project"],
        exit: [1, 2, 3],
      },
    ],
  },
  "permissions uninstall": {
    baseline: () => ["permissions", "uninstall", "--dry-run"],
    cases: [
      {
        name: "permissions is a number",
        setup: (fx) => write(localSettings(fx), '{"permissions": 7}'),
        argv: () => ["permissions", "uninstall"],
        exit: 1,
        code: "SETTINGS_INVALID",
      },
      {
        name: "shared settings file is a symlink",
        setup: (fx) => symlinkOut(fx, settingsFile(fx)),
        argv: () => ["permissions", "uninstall", "--scope", "project"],
        exit: [1, 2, 3],
        code: ["SYMLINK_REFUSED", "PATH_OUTSIDE_PROJECT"],
      },
      {
        name: "user scope settings are truncated",
        setup: (fx) => write(join(fx.home, ".claude", "settings.json"), '{"permissions": {'),
        argv: () => ["permissions", "uninstall", "--scope", "user"],
        exit: 1,
        code: "SETTINGS_INVALID",
      },
    ],
  },
  "statusline render": {
    baseline: () => ["statusline", "render"],
    cases: [
      ...["{", "null", "[]", '{"context_window": "lots"}', "\u0000\u0001\u0002", big(300_000, "{")]
        .map((stdin, i) => ({
          name: `garbage on stdin #${i + 1}`,
          argv: () => ["statusline", "render"],
          stdin,
          exit: 0,
        })),
      {
        name: "context reading file is broken",
        setup: (fx) => write(join(sessionDir(fx), "context.json"), "{nope"),
        argv: () => ["statusline", "render"],
        stdin: "{}",
        exit: 0,
      },
      {
        name: "read-only project",
        argv: () => ["statusline", "render"],
        stdin: '{"session_id":"x","context_window":{"used_percentage":40}}',
        readOnly: true,
        exit: 0,
      },
    ],
  },
};
