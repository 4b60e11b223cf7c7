/**
 * The prompt of a detached vendor process: a minimal excerpt (who, what, which
 * files, where to look) plus the few rules that still apply when nobody
 * watches the terminal. Heartbeats and the final outcome come from the
 * supervisor, so the prompt only mentions the optional named-step beat.
 */
import { gateError } from "../../core/errors.ts";
import { commandLine } from "../../core/shell.ts";
import type { VendorPermissions } from "../../core/vendors.ts";
import type { RuntimeArgs } from "../runtime_args.ts";

/** A marker that only an orchestrator's own session history carries; never sent to a vendor. */
export const HISTORY_BOUNDARY = "@@@ORCHESTRATOR_SESSION_HISTORY_BOUNDARY@@@";

export function refuseHistoryBoundary(prompt: string, where: string): void {
  if (!prompt.includes(HISTORY_BOUNDARY)) return;
  throw gateError(
    "HISTORY_BOUNDARY_IN_PROMPT",
    `The prompt from ${where} contains ${HISTORY_BOUNDARY}: it carries the orchestrator's session history, which a detached sub-agent must never receive. Pass only the task, the files and the references.`,
    { data: { marker: HISTORY_BOUNDARY, source: where } },
  );
}

export interface DetachedPromptArgs {
  runtime: RuntimeArgs;
  recordPath: string;
  runDir: string;
  vendor: string;
  permissions: VendorPermissions;
}

const PERMISSION_WORDS: Record<VendorPermissions, string> = {
  role:
    "- Read the project, edit files inside it with your file tools, and run `peaks`; other shell commands,\n" +
    "  files outside the project and the network may be refused, and a refused call marks the run failed.",
  "read-only":
    "- You may read the project and run `peaks`; edits and other commands are refused, and a refused\n" +
    "  call marks the run failed.",
  full: "- Nothing asks before your tool calls: stay inside the project and the task.",
};

export function composeDetachedPrompt(args: DetachedPromptArgs, task: string): string {
  const { runtime: rt, recordPath, runDir } = args;
  const root = ["--project", rt.projectRoot];
  const beat = commandLine([
    "peaks",
    "sub-agent",
    "heartbeat",
    "--record",
    recordPath,
    ...root,
  ]);
  const artifact = commandLine(["peaks", "sub-agent", "artifact", "--record", recordPath, ...root]);
  const result = JSON.stringify({
    role: rt.role,
    rid: rt.requestId,
    status: "ok",
    artefacts: ["<path>"],
    warnings: [],
    blockedReason: null,
    reason: null,
    diffSummary: "<files changed and why>",
  });
  const references = [
    `project scan ${rt.projectScan.path}${rt.projectScan.exists ? "" : " (not written yet)"}`,
    ...(rt.existingSystem ? [`existing system ${rt.existingSystem}`] : []),
    `private notes ${rt.markerPath}`,
  ];
  return [
    `# Detached sub-agent: ${rt.role} for ${rt.requestId}`,
    `You run as a separate ${args.vendor} process started by peaks; nobody reads your terminal.`,
    "",
    `Project ${rt.projectRoot} | session ${rt.sessionId} | request ${rt.requestId} | batch ${rt.batchId}`,
    `Record ${recordPath} | run folder ${runDir}`,
    "",
    "## Task",
    task.trim(),
    "",
    "## Files",
    `- Yours to write: ${
      rt.declaredArtifacts.length ? rt.declaredArtifacts.join(", ") : "what the task names"
    }`,
    `- References: ${references.join("; ")}`,
    `- Register each artefact: ${artifact} --path <file> --summary "<one line>"`,
    "",
    "## Progress and context",
    "- peaks records a heartbeat from your output and the outcome from your exit code and your own",
    "  structured output (refused tool calls, API and login errors).",
    `- For a named step you may add: ${beat} --status running --progress <0-100> --stage <stage> --note "<step>"`,
    `- When your context passes 85 % (again at 95 %), save durable state to ${runDir}/compact/<n>.json`,
    "  (n from 1): {n, at, summary, taskState, decisionsKept[], optionsDiscarded[]}. Nothing flows back to you.",
    "",
    "## Rules",
    PERMISSION_WORDS[args.permissions],
    "- No git commit, push, tag, checkout -b or other state-changing git command: leave the diff on",
    '  disk and describe it in diffSummary. An urgent commit is status "blocked", blockedReason',
    '  "blocked-by-orchestrator-policy".',
    '- Ask nobody anything: return status "blocked" with blockedReason instead.',
    "- No skills, no `peaks skill presence:set`, no hook or settings changes, no `peaks sub-agent dispatch`.",
    "",
    "## Finish",
    "End with exactly this JSON as your last output, then exit 0 (a non-zero exit marks the run failed):",
    result,
    "",
  ].join("\n");
}
