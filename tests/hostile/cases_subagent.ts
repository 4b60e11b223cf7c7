/** Hostile cases: the sub-agent group. */
import { join } from "../../lib/infra/std.ts";
import {
  agentsDir,
  batchFile,
  big,
  channelFile,
  type CommandCases,
  dropField,
  extraField,
  recordAbs,
  sessionDir,
  symlinkOut,
  truncate,
  UNICODE,
  write,
  wrongVersion,
} from "./model.ts";
import type { Fixture } from "./fixture.ts";
import { heartbeatArgs } from "../support/subagent.ts";

const beat = (fx: Fixture, ...more: string[]) => [
  ...heartbeatArgs(fx.record, "20"),
  ...more,
];

/** A DAG in the spec's format (`{nodes, edges}`) with `n` nodes in a chain of levels. */
export function bigDag(n: number): string {
  const nodes = Array.from({ length: n }, (_, i) => ({
    id: `n${i}`,
    role: i % 2 ? "qa" : "rd",
    prompt: `node ${i}`,
    complexity: "simple",
  }));
  const edges = Array.from({ length: n - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` }));
  return JSON.stringify({ nodes, edges });
}

export const SUBAGENT_CASES: Record<string, CommandCases> = {
  "sub-agent dispatch": {
    baseline:
      () => ["sub-agent", "dispatch", "rd", "--request-id", "r1", "--prompt-file", "prompt.md"],
    // --from-dag replaces the role and the prompt; its mutations start from a DAG call.
    flagBaselines: {
      "from-dag": () => ["sub-agent", "dispatch", "--from-dag", "dag.json"],
      "max-parallel":
        () => ["sub-agent", "dispatch", "--from-dag", "dag.json", "--max-parallel", "2"],
    },
    cases: [
      {
        name: "role with a newline",
        argv: () => ["sub-agent", "dispatch", "rd\nqa", "--prompt", "go"],
        exit: 2,
        code: "INVALID_ROLE",
      },
      {
        name: "role of 257 characters",
        argv: () => ["sub-agent", "dispatch", big(257, "r"), "--prompt", "go"],
        exit: 2,
        code: "INVALID_ROLE",
      },
      {
        name: "prompt file outside the project",
        argv: (
          fx,
        ) => ["sub-agent", "dispatch", "rd", "--prompt-file", join(fx.outside, "secret.txt")],
        exit: 2,
        code: "PATH_OUTSIDE_PROJECT",
      },
      {
        name: "prompt file through a symlink out",
        argv: () => ["sub-agent", "dispatch", "rd", "--prompt-file", "link-out/secret.txt"],
        exit: 2,
        code: "PATH_OUTSIDE_PROJECT",
      },
      {
        name: "prompt file with NUL bytes and RTL text",
        setup: (fx) => write(join(fx.root, "nul.md"), `a\u0000b ${UNICODE.rtl}`),
        argv: () => ["sub-agent", "dispatch", "rd", "--prompt-file", "nul.md"],
        exit: [0, 2, 3],
      },
      {
        name: "batch file with a wrong version",
        setup: (fx) => wrongVersion(batchFile(fx)),
        argv: (fx) => ["sub-agent", "dispatch", "rd", "--batch-id", fx.batch, "--prompt", "go"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "batch file truncated",
        setup: (fx) => truncate(batchFile(fx)),
        argv: (fx) => ["sub-agent", "dispatch", "rd", "--batch-id", fx.batch, "--prompt", "go"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "empty prompt from stdin",
        argv: () => ["sub-agent", "dispatch", "rd", "--prompt", "-"],
        stdin: "",
        exit: [0, 2],
      },
      {
        name: "read-only project",
        argv: () => ["sub-agent", "dispatch", "rd", "--prompt", "go"],
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
      {
        name: "a DAG of 10 000 nodes",
        setup: (fx) => write(join(fx.root, "dag.json"), bigDag(10_000)),
        argv: () => ["sub-agent", "dispatch", "--from-dag", "dag.json"],
        whenFlag: "from-dag",
        without: { exit: 2, code: "UNKNOWN_FLAG" },
        exit: [0, 1, 2, 3],
      },
    ],
  },
  "sub-agent brief": {
    baseline: (fx) => ["sub-agent", "brief", "--record", fx.record],
    cases: [
      {
        name: "a file that is not a record",
        argv: () => ["sub-agent", "brief", "--record", "prompt.md"],
        exit: 2,
        code: "NOT_A_DISPATCH_RECORD",
      },
      {
        name: "record with a wrong version",
        setup: (fx) => wrongVersion(recordAbs(fx)),
        argv: (fx) => ["sub-agent", "brief", "--record", fx.record],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "record missing its prompt",
        setup: (fx) => dropField(recordAbs(fx), "prompt"),
        argv: (fx) => ["sub-agent", "brief", "--record", fx.record],
        exit: [0, 1],
      },
    ],
  },
  "sub-agent heartbeat": {
    baseline: (fx) => beat(fx, "--note", "ok"),
    cases: [
      ...Object.entries(UNICODE).map(([kind, text]) => ({
        name: `note with ${kind} text`,
        argv: (fx: Fixture) => beat(fx, "--note", text),
        exit: 0,
      })),
      {
        name: "note with a NUL byte written as an escape",
        argv: (fx) => beat(fx, "--note", "a\u0001b"),
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "truncated record",
        setup: (fx) => truncate(recordAbs(fx)),
        argv: (fx) => beat(fx),
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "record with a wrong version",
        setup: (fx) => wrongVersion(recordAbs(fx)),
        argv: (fx) => beat(fx),
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "record missing heartbeats",
        setup: (fx) => dropField(recordAbs(fx), "heartbeats"),
        argv: (fx) => beat(fx),
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "record with extra fields keeps them",
        setup: (fx) => extraField(recordAbs(fx)),
        argv: (fx) => beat(fx),
        exit: 0,
      },
      {
        name: "oversized record",
        setup: (fx) =>
          write(
            recordAbs(fx),
            JSON.stringify({
              ...JSON.parse(Deno.readTextFileSync(recordAbs(fx))),
              prompt: big(40 * 1024 * 1024),
            }),
          ),
        argv: (fx) => beat(fx),
        exit: [0, 1],
      },
      {
        name: "record path is a symlink out",
        setup: (fx) => symlinkOut(fx, join(agentsDir(fx), "dispatch-r1-rd-x-0000.json")),
        argv: (fx) =>
          beat({ ...fx, record: `.peaks/_sub_agents/${fx.sid}/dispatch-r1-rd-x-0000.json` }),
        exit: 2,
        code: "PATH_OUTSIDE_PROJECT",
      },
      {
        name: "read-only project",
        argv: (fx) => beat(fx),
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
    ],
  },
  "sub-agent list": {
    baseline: () => ["sub-agent", "list"],
    cases: [
      {
        name: "one truncated record never blocks the list",
        setup: (fx) => truncate(recordAbs(fx)),
        argv: () => ["sub-agent", "list"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "records folder holds a directory named like a record",
        setup: (fx) => Deno.mkdir(join(agentsDir(fx), "dispatch-x-rd-1-aaaa.json")),
        argv: () => ["sub-agent", "list"],
        exit: [0, 1],
      },
    ],
  },
  "sub-agent status": {
    baseline: (fx) => ["sub-agent", "status", "--batch", fx.batch],
    cases: [
      {
        name: "batch file is an array",
        setup: (fx) => write(batchFile(fx), "[]"),
        argv: (fx) => ["sub-agent", "status", "--batch", fx.batch],
        exit: [0, 1],
      },
      {
        name: "label with control characters",
        argv: (fx) => ["sub-agent", "status", "--batch", fx.batch, "--label", "a\u001b[31mred"],
        exit: 2,
      },
    ],
  },
  "sub-agent watch": {
    baseline: (fx) => ["sub-agent", "watch", "--batch", fx.batch, "--timeout", "300ms"],
    tame: ["--timeout", "300ms"],
    cases: [
      {
        name: "interval that is not a duration",
        argv: (fx) => ["sub-agent", "watch", "--batch", fx.batch, "--interval", "often"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "member record truncated while watching",
        setup: (fx) => truncate(recordAbs(fx)),
        argv: (fx) => ["sub-agent", "watch", "--batch", fx.batch, "--timeout", "300ms"],
        exit: [0, 1, 3],
      },
    ],
  },
  "sub-agent finalize": {
    baseline: (fx) => ["sub-agent", "finalize", "--record", fx.record, "--outcome", "done"],
    cases: [
      {
        name: "result JSON nested 10 000 levels deep",
        argv: (fx) => [
          "sub-agent",
          "finalize",
          "--record",
          fx.record,
          "--outcome",
          "done",
          "--result-json",
          `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`,
        ],
        exit: 2,
        code: "JSON_TOO_DEEP",
      },
      {
        name: "truncated result JSON",
        argv: (fx) => [
          "sub-agent",
          "finalize",
          "--record",
          fx.record,
          "--outcome",
          "done",
          "--result-json",
          '{"role":"rd","rid":"r1","sta',
        ],
        exit: 2,
        code: "INVALID_RESULT_JSON",
      },
      {
        name: "result JSON missing its status",
        argv: (fx) => [
          "sub-agent",
          "finalize",
          "--record",
          fx.record,
          "--outcome",
          "done",
          "--result-json",
          '{"role":"rd","rid":"r1"}',
        ],
        exit: 2,
        code: "INVALID_RESULT_JSON",
      },
      {
        name: "result JSON with extra fields",
        argv: (fx) => [
          "sub-agent",
          "finalize",
          "--record",
          fx.record,
          "--outcome",
          "done",
          "--result-json",
          `{"role":"rd","rid":"r1","status":"ok","extra":{"x":[1,2]},"note":"${UNICODE.emoji}"}`,
        ],
        exit: 0,
      },
      {
        name: "result JSON over 64 KiB",
        argv: (fx) => [
          "sub-agent",
          "finalize",
          "--record",
          fx.record,
          "--outcome",
          "done",
          "--result-json",
          `{"role":"rd","rid":"r1","status":"ok","pad":"${big(70_000)}"}`,
        ],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "batch with a broken record is skipped, not a crash",
        setup: (fx) => truncate(recordAbs(fx)),
        argv: (fx) => ["sub-agent", "finalize", "--batch", fx.batch, "--outcome", "failed"],
        exit: [0, 1],
      },
    ],
  },
  "sub-agent artifact": {
    baseline: (fx) => [
      "sub-agent",
      "artifact",
      "--record",
      fx.record,
      "--path",
      `.peaks/_runtime/${fx.sid}/rd/notes.md`,
    ],
    cases: [
      {
        name: "artefact outside the project",
        argv: (
          fx,
        ) => [
          "sub-agent",
          "artifact",
          "--record",
          fx.record,
          "--path",
          join(fx.outside, "secret.txt"),
        ],
        exit: 2,
        code: "PATH_OUTSIDE_PROJECT",
      },
      {
        name: "artefact through a symlink out",
        argv: (
          fx,
        ) => ["sub-agent", "artifact", "--record", fx.record, "--path", "link-out/secret.txt"],
        exit: 2,
        code: "PATH_OUTSIDE_PROJECT",
      },
      {
        name: "artefact over 1 MiB",
        setup: (fx) => write(join(sessionDir(fx), "rd", "huge.md"), big(1024 * 1024 + 1)),
        argv: (fx) => [
          "sub-agent",
          "artifact",
          "--record",
          fx.record,
          "--path",
          `.peaks/_runtime/${fx.sid}/rd/huge.md`,
        ],
        exit: 3,
        code: "ARTIFACT_TOO_LARGE",
      },
      {
        name: "summary with combining marks",
        argv: (fx) => [
          "sub-agent",
          "artifact",
          "--record",
          fx.record,
          "--path",
          `.peaks/_runtime/${fx.sid}/rd/notes.md`,
          "--summary",
          UNICODE.combining,
        ],
        exit: 0,
      },
    ],
  },
  "sub-agent share": {
    baseline: (fx) => ["sub-agent", "share", "--batch", fx.batch, "--key", "rd.x", "--value", "1"],
    cases: [
      {
        name: "a value nested 10 000 levels deep",
        argv: (fx) => [
          "sub-agent",
          "share",
          "--batch",
          fx.batch,
          "--key",
          "rd.deep",
          "--value",
          `${"[".repeat(10_000)}${"]".repeat(10_000)}`,
        ],
        exit: 2,
        code: "JSON_TOO_DEEP",
      },
      {
        name: "key with a control character",
        argv: (
          fx,
        ) => ["sub-agent", "share", "--batch", fx.batch, "--key", "a\u0002", "--value", "1"],
        exit: 2,
      },
      {
        name: "value of 64 KiB",
        argv: (fx) => [
          "sub-agent",
          "share",
          "--batch",
          fx.batch,
          "--key",
          "rd.big",
          "--value",
          JSON.stringify(big(64 * 1024)),
        ],
        exit: 3,
        code: "SHARE_VALUE_TOO_LARGE",
      },
      {
        name: "channel with a wrong version",
        setup: (fx) => wrongVersion(channelFile(fx)),
        argv: (fx) => ["sub-agent", "share", "--batch", fx.batch, "--key", "rd.x", "--value", "1"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "value with emoji and RTL",
        argv: (fx) => [
          "sub-agent",
          "share",
          "--batch",
          fx.batch,
          "--key",
          "rd.u",
          "--value",
          JSON.stringify(UNICODE.emoji + UNICODE.rtl),
        ],
        exit: 0,
      },
    ],
  },
  "sub-agent shared-read": {
    baseline: (fx) => ["sub-agent", "shared-read", "--batch", fx.batch],
    cases: [
      {
        name: "truncated channel",
        setup: (fx) => truncate(channelFile(fx)),
        argv: (fx) => ["sub-agent", "shared-read", "--batch", fx.batch],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "since that is not a time",
        argv: (fx) => ["sub-agent", "shared-read", "--batch", fx.batch, "--since", "yesterday-ish"],
        exit: 2,
      },
      {
        name: "channel entry missing fields",
        setup: (fx) =>
          write(
            channelFile(fx),
            JSON.stringify({ version: 1, batchId: fx.batch, entries: [{ key: "x" }] }),
          ),
        argv: (fx) => ["sub-agent", "shared-read", "--batch", fx.batch],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
    ],
  },
  "sub-agent supervise": {
    baseline: (fx) => ["sub-agent", "supervise", "--record", fx.record],
    cases: [
      {
        name: "an in-process record is not supervised",
        argv: (fx) => ["sub-agent", "supervise", "--record", fx.record],
        exit: 1,
        code: "NOT_DETACHED",
      },
      {
        name: "record path with ..",
        argv: () => ["sub-agent", "supervise", "--record", "../x.json"],
        exit: 2,
        code: "PATH_OUTSIDE_PROJECT",
      },
      {
        name: "a file that is not a dispatch record",
        argv: () => ["sub-agent", "supervise", "--record", ".peaks/none.json"],
        exit: 2,
        code: "NOT_A_DISPATCH_RECORD",
      },
      {
        name: "record with a wrong version",
        setup: (fx) => wrongVersion(recordAbs(fx)),
        argv: (fx) => ["sub-agent", "supervise", "--record", fx.record],
        exit: [1, 2],
      },
    ],
  },
  "sub-agent merge": {
    baseline: (fx) => ["sub-agent", "merge", "--record", fx.record],
    cases: [
      {
        name: "a record that is not a slice (or no repository)",
        argv: (fx) => ["sub-agent", "merge", "--record", fx.record],
        exit: [1, 3],
        code: ["NOT_A_SLICE", "WORKTREE_UNAVAILABLE"],
        unchanged: true,
      },
      {
        name: "record path that escapes",
        argv: () => ["sub-agent", "merge", "--record", "../../etc/passwd"],
        exit: 2,
        code: "PATH_OUTSIDE_PROJECT",
      },
      {
        name: "both sides and a redo",
        argv: (fx) => ["sub-agent", "merge", "--record", fx.record, "--keep", "main", "--redo"],
        exit: 2,
        code: "CONFLICTING_FLAGS",
      },
      {
        name: "a side that does not exist",
        argv: (fx) => ["sub-agent", "merge", "--record", fx.record, "--keep", "both"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "a truncated record",
        setup: (fx) => truncate(recordAbs(fx)),
        argv: (fx) => ["sub-agent", "merge", "--record", fx.record],
        exit: [1, 3],
      },
    ],
  },
  "sub-agent cleanup": {
    baseline: () => ["sub-agent", "cleanup", "--dry-run"],
    cases: [
      {
        name: "age that is not a duration",
        argv: () => ["sub-agent", "cleanup", "--older-than", "ancient"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "session id that escapes",
        argv: () => ["sub-agent", "cleanup", "--session", "../_runtime"],
        exit: 2,
        code: "INVALID_IDENTIFIER",
      },
      {
        name: "a truncated record is left alone",
        setup: (fx) => truncate(recordAbs(fx)),
        argv: () => ["sub-agent", "cleanup", "--older-than", "0s"],
        exit: [0, 1],
      },
    ],
  },
  "sub-agent repair": {
    baseline: (fx) => ["sub-agent", "repair", "--batch", fx.batch],
    cases: [
      {
        name: "batch id that escapes",
        argv: () => ["sub-agent", "repair", "--batch", "../../x"],
        exit: 2,
        code: "INVALID_IDENTIFIER",
      },
      {
        name: "a batch nobody dispatched into",
        argv: () => ["sub-agent", "repair", "--batch", "nothing-here"],
        exit: 1,
        code: "BATCH_NOT_FOUND",
        unchanged: true,
      },
      {
        name: "a truncated batch file is rebuilt from its records",
        setup: (fx) => truncate(batchFile(fx)),
        argv: (fx) => ["sub-agent", "repair", "--batch", fx.batch],
        exit: 0,
      },
      {
        name: "a batch file that is a symlink out",
        setup: (fx) => symlinkOut(fx, batchFile(fx)),
        argv: (fx) => ["sub-agent", "repair", "--batch", fx.batch],
        exit: [0, 1],
      },
      {
        name: "read-only project",
        setup: (fx) => truncate(batchFile(fx)),
        argv: (fx) => ["sub-agent", "repair", "--batch", fx.batch],
        readOnly: true,
        exit: 1,
        code: ["READ_ONLY", "ACCESS_DENIED"],
      },
    ],
  },
};
