import { defineCommand, flag } from "../cli/spec.ts";
import { BATCH_SOFT_LIMIT } from "../core/batches.ts";
import type { Warning } from "../core/errors.ts";
import { readGitHead } from "../core/git.ts";
import { detectIde, IDE_IDS } from "../core/ide.ts";
import { assertId, newUuid } from "../core/ids.ts";
import { displayPath } from "../core/paths.ts";
import { guardFlagPath } from "../core/project.ts";
import type { ArtifactMeta } from "../core/records.ts";
import { assertRole } from "../core/record_names.ts";
import { openSession } from "../core/session.ts";
import { commandLine } from "../core/shell.ts";
import { buildMeta, checkArtifactPath, compactMeta, measureArtifact } from "./artifact_rules.ts";
import { type BudgetedPrompt, type PromptBudgetStep, writeDispatch } from "./dispatch_record.ts";
import { governanceFlags, governanceWords } from "../context/flags.ts";
import { budgetData, governPrompt, type RerunChange } from "../context/governance.ts";
import type { HeadroomMode } from "../context/budget.ts";
import { type Replay, replayPlan } from "./replay.ts";
import type { PromptInput } from "./prompt_input.ts";
import type { Ctx } from "../core/ctx.ts";
import type { IdeEntry } from "../core/ide.ts";
import type { Project } from "../core/project.ts";
import { readPromptInput } from "./prompt_input.ts";
import { readSurroundings, runtimeArgs } from "./runtime_args.ts";
import { EXPECTED_COMPLETION_SECONDS, visibleHint } from "./tool_call.ts";
import { assertDetachedFlags, detachedFlags } from "./detached/flags.ts";

export const ENVELOPE_VERSION = "2.1.0";

/** A dispatch without --request-id still needs an id for file names: one per batch. */
export function generatedRequestId(batchId: string): string {
  return `adhoc-${batchId.slice(0, 12).replace(/[._-]+$/, "")}`;
}

const utf8 = (text: string) => new TextEncoder().encode(text).length;

export default defineCommand({
  name: "sub-agent dispatch",
  description:
    "Writes a dispatch record and returns the tool call that starts a sub-agent in the orchestrator's IDE " +
    "(data.toolCall = {name, args}); peaks starts nothing itself. The prompt comes from --prompt, --prompt-file " +
    "or stdin (--prompt -) and is composed with a runtime-arguments block and the heartbeat, completion, " +
    "prohibition, commit/push-policy and shared-channel blocks. The prompt appears on stdout only inside " +
    "data.toolCall.args.prompt; with --brief pointer the tool call carries a short instruction to run " +
    "`peaks sub-agent brief` instead, and the envelope stays under 1 KB (no projectRoot, instructions or nextActions). Without --request-id the request id is `adhoc-<first 12 characters of the batch id>`. " +
    "Hosts without an in-process sub-agent tool (codex, gemini, opencode, …) get IDE_NOT_SUPPORTED (exit 3). " +
    "--mode detached instead starts a vendor CLI (claude, codex, copilot, gemini, opencode) under a detached " +
    "peaks supervisor with a minimal prompt and returns at once (data.detached; see docs/detached.md).",
  args: [{
    name: "role",
    description: "Free-form role, 1-256 characters without whitespace (rd, qa-test-cases, ui, …).",
    required: true,
  }],
  flags: {
    prompt: flag.string("The prompt text, or - to read it from stdin.", {
      placeholder: "<text|->",
      allowControl: true,
      max: 16_000_000,
    }),
    "prompt-file": flag.string("Read the prompt from this file (any size up to 32 MiB).", {
      placeholder: "<path>",
      max: 4096,
    }),
    "request-id": flag.string("The request id (rid) this sub-agent works on.", {
      placeholder: "<rid>",
      max: 128,
    }),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
    "batch-id": flag.string("Join this batch (siblings share its channel); default: a new UUID.", {
      placeholder: "<id>",
      max: 128,
    }),
    ide: flag.enum(IDE_IDS, "Override IDE detection."),
    brief: flag.enum(
      ["inline", "pointer"],
      "inline: the tool call carries the whole prompt; pointer: a short instruction to fetch it.",
      { default: "inline" },
    ),
    "write-artifact": flag.list("An artefact path the sub-agent will own.", {
      placeholder: "<path>",
    }),
    "heartbeat-interval": flag.int("Seconds between the sub-agent's heartbeats (5-600).", {
      min: 5,
      max: 600,
      default: 30,
    }),
    "graph-node": flag.string("Workflow graph node id, stored as graphNodeId.", {
      placeholder: "<id>",
      max: 128,
    }),
    "workflow-id": flag.string("Workflow id, stored as workflowId.", {
      placeholder: "<id>",
      max: 128,
    }),
    ...governanceFlags,
    ...detachedFlags,
  },
  examples: [
    "peaks sub-agent dispatch rd-planning --request-id 001-login --prompt-file .peaks/_runtime/<sid>/rd/task.md --json",
    "cat task.md | peaks sub-agent dispatch qa-test-cases --request-id 001-login --batch-id <id> --prompt - --json",
    "peaks sub-agent dispatch ui --request-id 001-login --prompt 'Design the login page' --brief pointer --json",
    "peaks sub-agent dispatch rd --request-id 001-login --prompt-file task.md --mode detached --vendor codex --timeout 30m --json",
  ],
  exitNotes: [
    "3  IDE_NOT_SUPPORTED: the IDE has no in-process sub-agent tool (nextActions: a detached run)",
    "3  RESOURCE_BUDGET_EXCEEDED: --max-concurrent detached sub-agents already run (nextActions: --no-throttle, watch)",
    "3  PROMPT_TOO_LARGE: also past the vendor's argument cap in detached mode (nextActions: --brief pointer)",
    "3  HISTORY_BOUNDARY_IN_PROMPT: the prompt carries the orchestrator's session-history marker",
    "1  VENDOR_NOT_FOUND: no vendor CLI on PATH for --mode detached",
    "1  SUPERVISOR_START_FAILED: the detached supervisor did not start (the record is marked failed)",
  ],
  async run({ flags, args, given }, ctx) {
    const role = assertRole(args.role ?? "");
    assertDetachedFlags(flags.mode, given);
    const rid = flags["request-id"] === undefined
      ? undefined
      : assertId(flags["request-id"], "--request-id");
    const givenBatch = flags["batch-id"] === undefined
      ? undefined
      : assertId(flags["batch-id"], "--batch-id");
    const graphNodeId = flags["graph-node"] === undefined
      ? null
      : assertId(flags["graph-node"], "--graph-node");
    const workflowId = flags["workflow-id"] === undefined
      ? null
      : assertId(flags["workflow-id"], "--workflow-id");
    const { project, sessionId } = await openSession(ctx, flags["session-id"]);
    // Started now, awaited later: the git process and the reads overlap the rest of the checks.
    const gitHead = readGitHead(project.root);
    const surroundings = readSurroundings(ctx, project, sessionId, rid ?? null);
    surroundings.catch(() => {});
    const prompt = await readPromptInput(ctx, project, flags);
    const detected = await detectIde(ctx.env, project.root, flags.ide);
    const replay: Replay = {
      role,
      sessionId,
      requestId: rid,
      batchId: givenBatch,
      brief: flags.brief === "inline" ? undefined : flags.brief,
      heartbeatInterval: flags["heartbeat-interval"] === 30
        ? undefined
        : flags["heartbeat-interval"],
      writeArtifacts: flags["write-artifact"],
      graphNode: graphNodeId ?? undefined,
      workflowId: workflowId ?? undefined,
      // A detached replay does not need the in-process IDE; the budget choices carry over.
      extraWords: governanceWords(flags),
    };
    const warnings: Warning[] = [];
    if (detected.source === "assumed") {
      warnings.push({
        code: "IDE_ASSUMED",
        message:
          "No IDE detected from the environment or project folders; assuming claude-code. Pass --ide to choose.",
      });
    }
    // A detached run needs no in-process tool; it branches off once the record's inputs are known.
    if (flags.mode !== "detached" && !detected.ide.inProcess) {
      const { ideNotSupported } = await import("./ide_not_supported.ts");
      throw await ideNotSupported(ctx, project, detected.ide, replay, prompt);
    }

    const batchId = givenBatch ?? newUuid();
    const requestId = rid ?? generatedRequestId(batchId);
    const now = ctx.now();
    const declared: string[] = [];
    const metas: ArtifactMeta[] = [];
    for (const raw of flags["write-artifact"]) {
      const path = await guardFlagPath(ctx, project, raw, { flag: "write-artifact" });
      const place = checkArtifactPath(project, sessionId, requestId, role, path, "write-artifact");
      const shown = displayPath(project.root, path);
      if (declared.includes(shown)) continue;
      declared.push(shown);
      const measured = await measureArtifact(project, path);
      if (measured) {
        metas.push(buildMeta(project, path, measured, {
          status: "created",
          summary: null,
          writtenAt: now.toISOString(),
          rid: requestId,
          role,
          idx: place.idx ?? metas.length + 1,
        }));
      }
    }

    const [around, git] = await Promise.all([surroundings, gitHead]);
    warnings.push(...around.warnings);
    const runtime = runtimeArgs(project, {
      sessionId,
      requestId,
      requestIdGenerated: rid === undefined,
      batchId,
      role,
      ide: detected.ide.id,
      heartbeatIntervalSec: flags["heartbeat-interval"],
      declaredArtifacts: declared,
    }, around);

    if (flags.mode === "detached") {
      const { dispatchDetached } = await import("./detached/dispatch_detached.ts");
      return await dispatchDetached(ctx, {
        project,
        runtime,
        ide: detected.ide,
        flags,
        artifactMetas: metas,
        git,
        graphNodeId,
        workflowId,
        now,
        warnings,
        prompt,
        replay,
      }, (ide, detachedReplay) => budgetStep(ctx, project, ide, flags, detachedReplay, prompt));
    }

    const written = await writeDispatch({
      project,
      runtime,
      ide: detected.ide,
      brief: flags.brief,
      callerPrompt: prompt.text,
      artifactMetas: metas,
      git,
      graphNodeId,
      workflowId,
      now,
    }, budgetStep(ctx, project, detected.ide, flags, replay, prompt));
    const { record, budget } = written;
    const toolCall = written.toolCall!;
    warnings.push(...budget.warnings);
    const n = record.dispatchedInBatch;
    if (n > BATCH_SOFT_LIMIT) {
      warnings.push({
        code: "BATCH_OVER_LIMIT",
        message:
          `Batch ${batchId} now has ${n} members; more than ${BATCH_SOFT_LIMIT} parallel sub-agents is hard to follow and to converge.`,
        count: n,
      });
    }

    const shownMetas = metas.map(compactMeta);
    const promptBytes = utf8(String(toolCall.args.prompt));
    const artifactBytes = shownMetas.length ? utf8(JSON.stringify(shownMetas)) : 0;
    const root = ["--project", project.root];
    const data: Record<string, unknown> = {
      envelopeVersion: ENVELOPE_VERSION,
      role,
      ide: detected.ide.id,
      originalPromptSize: record.originalPromptSize,
      promptSize: record.promptSize,
      toolCall,
      ...(written.aliases.length ? { toolCallAliases: written.aliases } : {}),
      dispatchRecordPath: written.displayPath,
      batchId,
      dispatchedInBatch: n,
      headroomCompressed: budget.headroomCompressed,
      headroomResult: budget.headroomResult,
      forcedAt: budget.forcedAt,
      ...(budget.verdict && flags.brief !== "pointer" ? { contextBudget: budget.verdict } : {}),
      contextImpact: { promptBytes, artifactBytes, totalBytes: promptBytes + artifactBytes },
      artifactMetas: shownMetas,
      orchestratorVisibleHint: visibleHint(toolCall.name, role, requestId, batchId),
      artifactsPublicPaths: declared,
      expectedCompletionSeconds: EXPECTED_COMPLETION_SECONDS,
    };
    // Pointer mode promises an envelope under 1 KB: the fields above and nothing more.
    const pointer = flags.brief === "pointer";
    if (!pointer) {
      data.projectRoot = project.root;
      data.instructions = [
        "This was a dry run: call the tool data.toolCall.name with data.toolCall.args now.",
        "Print data.orchestratorVisibleHint once per fan-out, then issue all tool calls in one message.",
        `When the sub-agent returns: git status, git diff, then peaks sub-agent finalize --record ${written.displayPath} --outcome done --result-json '<its return JSON>'.`,
      ];
    }
    return {
      data,
      warnings,
      nextActions: pointer
        ? []
        : [commandLine(["peaks", "sub-agent", "status", "--batch", batchId, ...root])],
      human: [
        `dispatched ${role} as #${n} of batch ${batchId} (${detected.ide.id}, brief ${flags.brief})`,
        `record: ${written.displayPath}`,
        `tool call: ${toolCall.name} (prompt ${record.promptSize} bytes; use --json for data.toolCall)`,
      ].join("\n"),
    };
  },
});

type BudgetFlags = Parameters<typeof governanceWords>[0] & { ide?: string };

/**
 * The G9 gate for this dispatch: headroom compression of the caller's prompt
 * when asked, then the verdict on the whole composed prompt. Refusals and
 * suggestions repeat this dispatch with the change, the prompt passed as a
 * file (an inline or stdin prompt is saved only when such a command is handed out).
 */
function budgetStep(
  ctx: Ctx,
  project: Project,
  ide: IdeEntry,
  flags: BudgetFlags,
  replay: Replay,
  prompt: PromptInput,
): PromptBudgetStep {
  return async (callerPrompt, overheadBytes): Promise<BudgetedPrompt> => {
    const plan = replayPlan(ctx, project, {
      ...replay,
      extraWords: flags.ide === undefined ? [] : ["--ide", flags.ide],
    }, prompt);
    let handedOut = false;
    const rerun = (change: RerunChange) => {
      handedOut = true;
      return commandLine([
        ...plan.words,
        ...governanceWords(flags, change),
        "--project",
        project.root,
      ]);
    };
    let outcome;
    try {
      outcome = await governPrompt({
        prompt: callerPrompt,
        extraBytes: overheadBytes,
        ide,
        contextWindow: flags["context-window"],
        force: flags.force,
        useHeadroom: flags["use-headroom"],
        headroomMode: flags["headroom-mode"] as HeadroomMode | undefined,
        project,
        env: ctx.env,
        now: ctx.now(),
        rerun,
      });
    } finally {
      if (handedOut) await plan.save();
    }
    return {
      prompt: outcome.prompt,
      originalPromptSize: outcome.originalPromptSize,
      headroomCompressed: outcome.headroomCompressed,
      headroomResult: outcome.headroomResult,
      headroomRecord: outcome.headroomRecord,
      forcedAt: outcome.forcedAt,
      warnings: outcome.warnings,
      verdict: budgetData(outcome),
    };
  };
}
