/** Hostile cases: context, requests, scan, standards, upgrade, preferences, skills, doctor, completions. */
import { join } from "../../lib/infra/std.ts";
import {
  big,
  bindingFile,
  type CommandCases,
  editJson,
  preferencesFile,
  recordAbs,
  requestFile,
  sessionDir,
  settingsFile,
  symlinkOut,
  truncate,
  UNICODE,
  write,
} from "./model.ts";

const transition = (...more: string[]) => ["request", "transition", "r1", "--role", "prd", ...more];
const skillsManifest = (root: string) =>
  join(root, ".claude", "skills", ".peaks-skills-manifest.json");

export const PROJECT_CASES: Record<string, CommandCases> = {
  "context check": {
    baseline: () => ["context", "check", "--prompt-file", "prompt.md"],
    cases: [
      {
        name: "prompt file over 1 MiB",
        setup: (fx) => write(join(fx.root, "huge.md"), big(1024 * 1024 + 10)),
        argv: () => ["context", "check", "--prompt-file", "huge.md"],
        exit: 3,
        code: "PROMPT_OVER_HARD_LIMIT",
      },
      {
        name: "prompt file is a directory",
        argv: () => ["context", "check", "--prompt-file", ".peaks"],
        exit: [1, 2],
      },
      {
        name: "prompt file that does not exist",
        argv: () => ["context", "check", "--prompt-file", "nope.md"],
        exit: [1, 2],
      },
      {
        name: "context window of zero",
        argv: () => ["context", "check", "--prompt-file", "prompt.md", "--context-window", "0"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "headroom at a non-loopback address never blocks",
        argv: () => ["context", "check", "--prompt-file", "prompt.md", "--use-headroom"],
        env: { HEADROOM_BASE_URL: "http://192.0.2.1:8787" },
        exit: 0,
        unchanged: true,
      },
    ],
  },
  "request init": {
    baseline: () => ["request", "init", "--role", "rd", "--id", "r1"],
    cases: [
      {
        name: "request id with control characters",
        argv: () => ["request", "init", "--role", "rd", "--id", "r\u00071"],
        exit: 2,
      },
      {
        name: "request id that escapes",
        argv: () => ["request", "init", "--role", "rd", "--id", "../../x", "--apply"],
        exit: 2,
        code: "INVALID_IDENTIFIER",
      },
      {
        name: "read-only project",
        argv: () => ["request", "init", "--role", "qa", "--id", "r9", "--apply"],
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
    ],
  },
  "request show": {
    baseline: () => ["request", "show", "r1", "--role", "prd"],
    cases: [
      {
        name: "front matter cut off",
        setup: async (fx) => await write(requestFile(fx), "---\nrid: r1\nrole: prd\n"),
        argv: () => ["request", "show", "r1", "--role", "prd"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "front matter with an unknown state",
        setup: async (fx) => {
          const text = await Deno.readTextFile(requestFile(fx));
          await write(requestFile(fx), text.replace("state: draft", "state: exploded"));
        },
        argv: () => ["request", "show", "r1", "--role", "prd"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "request file is a symlink out",
        setup: (fx) => symlinkOut(fx, requestFile(fx)),
        argv: () => ["request", "show", "r1", "--role", "prd"],
        exit: [1, 2],
      },
    ],
  },
  "request close": {
    baseline: () => ["request", "close", "r1"],
    cases: [
      {
        name: "a request whose txt is not finalized",
        argv: () => ["request", "close", "r1", "--decision", "uncommitted"],
        exit: 3,
        code: "REQUEST_NOT_FINISHED",
        unchanged: true,
      },
      {
        name: "a decision it does not know",
        argv: () => ["request", "close", "r1", "--decision", "maybe"],
        exit: 2,
        unchanged: true,
      },
      {
        name: "an id that climbs out",
        argv: () => ["request", "close", "../../etc", "--decision", "committed"],
        exit: 2,
        unchanged: true,
      },
      {
        name: "front matter cut off",
        setup: async (fx) => await write(requestFile(fx), "---\nrid: r1\nrole: prd\n"),
        argv: () => ["request", "close", "r1"],
        exit: [1, 3],
      },
    ],
  },
  "request list": {
    baseline: () => ["request", "list"],
    cases: [
      {
        name: "one broken request is a warning",
        setup: (fx) => truncate(requestFile(fx)),
        argv: () => ["request", "list"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "state filter with RTL text",
        argv: () => ["request", "list", "--state", UNICODE.rtl],
        exit: [0, 2],
      },
    ],
  },
  "request lint": {
    baseline: () => ["request", "lint", "r1", "--role", "prd"],
    cases: [
      {
        name: "request with NUL bytes in the body",
        setup: async (fx) => {
          const text = await Deno.readTextFile(requestFile(fx));
          await write(requestFile(fx), `${text}\nbad\u0000line ${UNICODE.combining}\n`);
        },
        argv: () => ["request", "lint", "r1", "--role", "prd"],
        exit: [0, 3],
      },
      {
        name: "missing request",
        argv: () => ["request", "lint", "nope", "--role", "prd"],
        exit: 1,
        code: "REQUEST_NOT_FOUND",
      },
    ],
  },
  "request transition": {
    baseline: () => transition("--state", "blocked", "--reason", "waiting"),
    cases: [
      {
        name: "state that the role does not have",
        argv: () => transition("--state", "teleported"),
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "reason over 500 characters",
        argv: () => transition("--state", "blocked", "--reason", big(501)),
        exit: 2,
      },
      {
        name: "reason with emoji and RTL",
        argv: () => transition("--state", "blocked", "--reason", UNICODE.emoji + UNICODE.rtl),
        exit: 0,
      },
      {
        name: "override ledger with a wrong version",
        setup: (fx) =>
          write(
            join(sessionDir(fx), "request-overrides.json"),
            JSON.stringify({ version: 7, sessionId: fx.sid, entries: [] }),
          ),
        argv: () =>
          transition("--state", "confirmed-by-user", "--allow-incomplete", "--reason", "x"),
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "read-only project",
        argv: () => transition("--state", "blocked", "--reason", "ro"),
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
    ],
  },
  "scan archetype": {
    baseline: () => ["scan", "archetype", "--dry-run"],
    cases: [
      {
        name: "truncated package.json",
        setup: (fx) => write(join(fx.root, "package.json"), '{"dependencies": {"react": "^18'),
        argv: () => ["scan", "archetype", "--dry-run"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "package.json that is an array",
        setup: (fx) => write(join(fx.root, "package.json"), "[1]"),
        argv: () => ["scan", "archetype", "--dry-run"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "oversized package.json",
        setup: (fx) => write(join(fx.root, "package.json"), `{"pad":"${big(3 * 1024 * 1024)}"}`),
        argv: () => ["scan", "archetype", "--dry-run"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "max-files that is negative",
        argv: () => ["scan", "archetype", "--max-files", "-5"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
    ],
  },
  "scan existing-system": {
    baseline: () => ["scan", "existing-system", "--dry-run"],
    cases: [
      {
        name: "existing-system.md is a symlink out",
        setup: (fx) => symlinkOut(fx, join(sessionDir(fx), "system", "existing-system.md")),
        argv: () => ["scan", "existing-system"],
        exit: [0, 1, 3],
      },
    ],
  },
  "standards init": {
    baseline: () => ["standards", "init"],
    cases: [
      {
        name: "CLAUDE.md is a symlink out",
        setup: (fx) => symlinkOut(fx, join(fx.root, "CLAUDE.md")),
        argv: () => ["standards", "init", "--apply"],
        exit: 3,
        code: "STANDARDS_REVIEW_ONLY",
      },
      {
        name: "stored scan is truncated",
        setup: async (fx) => {
          await write(join(fx.root, ".peaks", "project-scan", "project-scan.md"), "# scan\n");
          await write(join(fx.root, ".peaks", "project-scan", "project-scan.json"), '{"arch');
        },
        argv: () => ["standards", "init", "--apply"],
        exit: [0, 1],
      },
    ],
  },
  "standards update": {
    baseline: () => ["standards", "update"],
    cases: [
      {
        name: "AGENTS.md with a hand-edited block",
        setup: (fx) =>
          write(
            join(fx.root, "AGENTS.md"),
            "<!-- peaks:standards:begin -->\nmine\n<!-- peaks:standards:end -->\n",
          ),
        argv: () => ["standards", "update", "--apply"],
        exit: 3,
        code: "STANDARDS_REVIEW_ONLY",
      },
      {
        name: "read-only project",
        argv: () => ["standards", "update", "--apply"],
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
    ],
  },
  "upgrade": {
    baseline: () => ["upgrade", "--detect-1x"],
    cases: [
      {
        name: "preferences that are not a JSON object",
        setup: (fx) => write(preferencesFile(fx), '"2.0.0"'),
        argv: () => ["upgrade", "--detect-1x"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "global config truncated",
        setup: (fx) => write(join(fx.home, ".peaks", "config.json"), '{"version": "1.'),
        argv: () => ["upgrade", "--detect-1x"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "migration target that does not exist",
        argv: () => ["upgrade", "--to", "3.0", "--auto"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
    ],
  },
  "preferences get": {
    baseline: () => ["preferences", "get"],
    cases: [
      {
        name: "truncated preferences",
        setup: (fx) => write(preferencesFile(fx), '{"schema_version": "2.0'),
        argv: () => ["preferences", "get"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "preferences with an unknown field",
        setup: (fx) => write(preferencesFile(fx), '{"schema_version":"2.0.0","x":1}'),
        argv: () => ["preferences", "get"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "preferences is a symlink out",
        setup: (fx) => symlinkOut(fx, preferencesFile(fx)),
        argv: () => ["preferences", "get"],
        exit: [0, 1],
        unchanged: true,
      },
    ],
  },
  "preferences set": {
    baseline: () => ["preferences", "set", "--key", "swarmMode", "--value", "swarm"],
    cases: [
      {
        name: "value of the wrong type",
        argv:
          () => ["preferences", "set", "--key", "headroom.enabled", "--value", '"yes"', "--apply"],
        exit: 2,
        code: "INVALID_PREFERENCE_VALUE",
      },
      {
        name: "unknown key",
        argv: () => ["preferences", "set", "--key", "__proto__", "--value", "1", "--apply"],
        exit: 2,
        code: "UNKNOWN_PREFERENCE_KEY",
      },
      {
        name: "preferences is a symlink out",
        setup: (fx) => symlinkOut(fx, preferencesFile(fx)),
        argv: () => ["preferences", "set", "--key", "swarmMode", "--value", "swarm", "--apply"],
        exit: [0, 1],
      },
      {
        name: "read-only project",
        argv: () => ["preferences", "set", "--key", "swarmMode", "--value", "swarm", "--apply"],
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
    ],
  },
  "preferences reset": {
    baseline: () => ["preferences", "reset"],
    cases: [
      {
        name: "unknown key",
        argv: () => ["preferences", "reset", "--key", "constructor", "--apply"],
        exit: 2,
        code: "UNKNOWN_PREFERENCE_KEY",
      },
    ],
  },
  "skills install": {
    baseline: () => ["skills", "install", "--dry-run"],
    cases: [
      {
        name: ".claude is a symlink out of the project",
        setup: (fx) => Deno.symlink(fx.outside, join(fx.root, ".claude")),
        argv: () => ["skills", "install"],
        exit: [1, 3],
        code: "SYMLINK_REFUSED",
      },
      {
        name: "manifest truncated",
        setup: (fx) => write(skillsManifest(fx.root), '{"manifestVersion": 1, "fil'),
        argv: () => ["skills", "install"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "skills source is a file",
        env: { PEAKS_SKILLS_DIR: "prompt.md" },
        argv: () => ["skills", "install"],
        exit: 1,
      },
    ],
  },
  "skills uninstall": {
    baseline: () => ["skills", "uninstall", "--dry-run"],
    cases: [
      {
        name: "manifest with a wrong version",
        setup: (fx) => write(skillsManifest(fx.root), '{"manifestVersion": 9}'),
        argv: () => ["skills", "uninstall"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "manifest listing a path that escapes",
        setup: (fx) =>
          write(
            skillsManifest(fx.root),
            JSON.stringify({
              manifestVersion: 1,
              version: "2.0.0",
              installedAt: "2026-01-01T00:00:00.000Z",
              updatedAt: "2026-01-01T00:00:00.000Z",
              source: { kind: "env", path: "x" },
              agents: ["claude-code"],
              skills: ["peaks-code"],
              files: { "../../../outside/secret.txt": "0".repeat(64) },
              createdDirs: [],
            }),
          ),
        argv: () => ["skills", "uninstall", "--force"],
        exit: [1, 2, 3],
      },
    ],
  },
  "skills list": {
    baseline: () => ["skills", "list"],
    cases: [
      {
        name: "manifest is an array",
        setup: (fx) => write(skillsManifest(fx.root), "[]"),
        argv: () => ["skills", "list"],
        exit: [0, 1],
        unchanged: true,
      },
    ],
  },
  "skills verify": {
    baseline: () => ["skills", "verify"],
    cases: [
      {
        name: "nothing installed",
        argv: () => ["skills", "verify", "--agent", "trae"],
        exit: 3,
        unchanged: true,
      },
    ],
  },
  "doctor": {
    baseline: () => ["doctor"],
    cases: [
      {
        name: "an argument it does not take",
        argv: () => ["doctor", "extra"],
        exit: 2,
        code: "UNEXPECTED_ARGUMENT",
      },
      {
        name: "a torn dispatch record is an error finding, left in place",
        setup: (fx) => truncate(recordAbs(fx)),
        argv: () => ["doctor"],
        exit: 1,
        unchanged: true,
      },
      {
        name: "an unreadable skills manifest",
        setup: (fx) => write(skillsManifest(fx.root), "{not json"),
        argv: () => ["doctor"],
        exit: 1,
        unchanged: true,
      },
      {
        name: "Claude settings that are not JSON",
        setup: (fx) => write(settingsFile(fx), '{"statusLine": '),
        argv: () => ["doctor"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "a skills folder that is a symlink out of the project",
        setup: (fx) => symlinkOut(fx, join(fx.root, ".claude", "skills")),
        argv: () => ["doctor"],
        exit: 0,
        unchanged: true,
      },
      {
        name: ".peaks/.gitignore is a symlink out of the project",
        setup: (fx) => symlinkOut(fx, join(fx.root, ".peaks", ".gitignore")),
        argv: () => ["doctor"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "CLAUDE.md is a folder",
        setup: (fx) => Deno.mkdir(join(fx.root, "CLAUDE.md")),
        argv: () => ["doctor"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "a session binding that names a path",
        setup: (fx) => editJson(bindingFile(fx), (v) => ({ ...v, sessionId: "../../etc" })),
        argv: () => ["doctor"],
        exit: 1,
        unchanged: true,
      },
      {
        name: "PEAKS_SESSION_ID with control characters",
        env: { PEAKS_SESSION_ID: "a\u0007b" },
        argv: () => ["doctor"],
        exit: 1,
        unchanged: true,
      },
      {
        name: "a detached pid file that is a folder",
        setup: (fx) =>
          Deno.mkdir(join(sessionDir(fx), "detached", "r1", "rd-x", "pid"), { recursive: true }),
        argv: () => ["doctor"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "a huge record that is not JSON",
        setup: (fx) => write(recordAbs(fx), big(2 * 1024 * 1024, "{")),
        argv: () => ["doctor"],
        exit: 1,
        unchanged: true,
      },
      {
        name: "read-only project",
        argv: () => ["doctor"],
        readOnly: true,
        exit: [0, 1],
        unchanged: true,
      },
    ],
  },
  "completions": {
    baseline: () => ["completions", "bash"],
    cases: [
      {
        name: "unknown shell",
        argv: () => ["completions", "tcsh"],
        exit: 2,
        code: "INVALID_ARGUMENT",
      },
      {
        name: "shell name with control characters",
        argv: () => ["completions", "ba\u001bsh"],
        exit: 2,
        code: "INVALID_ARGUMENT",
      },
    ],
  },
  "debug run-probe": {
    baseline: () => ["debug", "run-probe", "git"],
    cases: [
      {
        name: "a program the permission set does not list",
        argv: () => ["debug", "run-probe", "sh"],
        exit: 1,
        code: "PERMISSION_DENIED",
        unchanged: true,
      },
      {
        name: "an absolute path to an unlisted program",
        argv: () => ["debug", "run-probe", "/bin/sh"],
        exit: 1,
        code: "PERMISSION_DENIED",
      },
      {
        name: "a program name with control characters",
        argv: () => ["debug", "run-probe", "g\u0007it"],
        exit: 2,
        code: "INVALID_ARGUMENT",
      },
      {
        name: "a program that does not exist",
        argv: () => ["debug", "run-probe", "no-such-program-xyz"],
        exit: 1,
        code: "PROGRAM_NOT_FOUND",
      },
    ],
  },
};
