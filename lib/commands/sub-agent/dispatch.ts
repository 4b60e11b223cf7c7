import { type CommandResult, defineCommand, type Input } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { readGitHead } from "../../infra/git.ts";
import { detectIde, HOSTS, IDE_IDS } from "../../hosts/registry.ts";
import { isoTime, newUuid, optionalId } from "../../infra/ids.ts";
import { guardFlagPath, type Project } from "../../workspace/project.ts";
import { join } from "../../infra/std.ts";
import { usageError, type Warning } from "../../infra/errors.ts";
import { assertRole, recordIdOf } from "../../record/names.ts";
import { openSession, type SessionContext } from "../../session/session.ts";
import {
  ENVELOPE_VERSION,
  type PromptBudgetStep,
  writeDispatch,
  type WrittenDispatch,
} from "../../dispatch/new_record.ts";
import { governanceFlags, governanceWords } from "../../budget/flags.ts";
import { type Replay, replayPlan } from "../../dispatch/replay.ts";
import { promptGiven, type PromptInput, readPromptInput } from "../../dispatch/prompt_input.ts";
import { readRoleSection } from "../../dispatch/role_section.ts";
import { promptBudgetStep } from "../../dispatch/budget_step.ts";
import { dispatchChecks } from "../../dispatch/fanout_check.ts";
import {
  declareArtifactsLazily,
  generatedRequestId,
  readSurroundings,
  runtimeArgs,
} from "../../dispatch/runtime_args.ts";
import { assertDetachedFlags, detachedFlags } from "../../detached/flags.ts";
import type { Ctx } from "../../infra/command/ctx.ts";
import type { RecordInputs } from "../../detached/input.ts";
import { toolCallText, visibleHint } from "../../dispatch/tool_call.ts";
import { readTuning } from "../../dispatch/role_tuning.ts";
import { withoutEmpty } from "../../infra/command/lean.ts";
import { BATCH_SOFT_LIMIT } from "../../batch/batch.ts";

const spec = defineCommand({
  name: "sub-agent dispatch",
  description:
    "Writes a dispatch record and returns the tool call that starts a sub-agent in the orchestrator's IDE " +
    "(data.toolCall = {name, args}); peaks starts nothing itself. The prompt comes from --prompt, --prompt-file " +
    "or stdin (--prompt -) and is composed with a runtime-arguments block and the heartbeat, completion, " +
    "prohibition, commit/push-policy and shared-channel blocks. The prompt appears on stdout only inside " +
    "data.toolCall.args.prompt; with --brief pointer the tool call carries a short instruction to run " +
    "`peaks sub-agent brief` instead, and the envelope stays under 1 KB (no projectRoot, instructions or nextActions). Without --request-id the request id is `adhoc-<first 12 characters of the batch id>`. " +
    `Each host gets its own tool (${
      HOSTS.flatMap((h) => h.subAgent ? [`${h.id}: ${h.subAgent.tool}`] : []).join(", ")
    }; unverified ones carry verified:false and the doc's address); hosts with none (${
      HOSTS.filter((h) => !h.subAgent).map((h) => h.id).join(", ")
    }) get IDE_NOT_SUPPORTED (exit 3). ` +
    "With --from-dag <file> it schedules a DAG instead (each node names its role): one call dispatches the next " +
    "ready level (or wave of --max-parallel nodes) into one batch and returns data.toolCalls[]; the next call " +
    "with the same --batch-id continues once those records are done (LEVEL_NOT_READY until then). " +
    "--mode detached instead starts a vendor CLI (claude, codex, copilot, gemini, opencode) under a detached " +
    "peaks supervisor with a minimal prompt and returns at once (data.detached; see docs/detached.md).",
  args: [{
    name: "role",
    description:
      "Free-form role, 1-256 characters without whitespace (rd, qa-test-cases, ui, …); omitted with --from-dag.",
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
      "pointer: the tool call carries a short instruction to fetch the prompt with `peaks sub-agent brief`; inline: the whole prompt (the default of --mode detached).",
      { default: "pointer" },
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
    "from-dag": flag.string(
      "Dispatch the next ready level of this DAG file ({nodes, edges}); <role> and the prompt come from each node.",
      { placeholder: "<file>", max: 4096 },
    ),
    "max-parallel": flag.int("With --from-dag: at most this many nodes per call (a wave).", {
      min: 1,
      max: 64,
      default: 6,
    }),
    ...governanceFlags,
    ...detachedFlags,
  },
  examples: [
    "peaks sub-agent dispatch rd-planning --request-id 001-login --prompt-file .peaks/_runtime/<sid>/rd/task.md --json",
    "cat task.md | peaks sub-agent dispatch qa-test-cases --request-id 001-login --batch-id <id> --prompt - --json",
    "peaks sub-agent dispatch ui --request-id 001-login --prompt 'Design the login page' --brief pointer --json",
    "peaks sub-agent dispatch --from-dag .peaks/_runtime/<sid>/sc/slice-dag-<rid>.json --batch-id <id> --json",
    "peaks sub-agent dispatch rd --request-id 001-login --prompt-file task.md --mode detached --vendor codex --timeout 30m --json",
  ],
  exitNotes: [
    "3  IDE_NOT_SUPPORTED: the IDE has no in-process sub-agent tool (nextActions: a detached run)",
    "3  LEVEL_NOT_READY (--from-dag): members of the batch are still running; DAG_BLOCKED: a node failed",
    "3  RESOURCE_BUDGET_EXCEEDED: --max-concurrent detached sub-agents already run (nextActions: --no-throttle, watch)",
    "3  PROMPT_TOO_LARGE: also past the vendor's argument cap in detached mode (nextActions: --brief pointer)",
    "3  HISTORY_BOUNDARY_IN_PROMPT: the prompt carries the orchestrator's session-history marker",
    "1  VENDOR_NOT_FOUND: no vendor CLI on PATH for --mode detached",
    "1  SUPERVISOR_START_FAILED: the detached supervisor did not start (the record is marked failed)",
  ],
  async run(input, ctx) {
    // A detached vendor reads its prompt from stdin, at no cost to the orchestrator: inline.
    if (input.flags.mode === "detached" && !input.given.has("brief")) input.flags.brief = "inline";
    if (input.flags["from-dag"] !== undefined) {
      assertDetachedFlags(input.flags.mode, input.given);
      const { dispatchFromDag } = await import("../../fanout/fanout.ts");
      return await dispatchFromDag(input, ctx);
    }
    const prepared = await prepare(input, ctx);
    if (input.flags.mode === "detached") {
      const { dispatchDetached } = await import("../../detached/dispatch.ts");
      return await dispatchDetached(
        ctx,
        prepared.inputs,
        (ide, detachedReplay) =>
          promptBudgetStep(ctx, prepared.inputs.project, ide, input.flags, () => {
            const plan = replayPlan(ctx, prepared.inputs.project, detachedReplay, prepared.prompt);
            return { words: plan.words, save: plan.save };
          }),
      );
    }
    return await dispatchInline(prepared.inputs, prepared.budgetStep);
  },
});

type DispatchInput = Input<typeof spec.flags>;

const WRITE_ARTIFACT_HINT = "--write-artifact names a file the dispatched sub-agent will own; a " +
  "sub-agent registers a file it wrote with peaks sub-agent artifact --record <record> --path <path>.";

/** The single-dispatch checks that need no disk: the role, and no DAG-only flag. */
function checkArgs({ args, given }: DispatchInput): string {
  if (args.role === undefined) {
    // 1.x registered a written file with `dispatch --write-artifact <path>`; now that is its own command.
    const artefact = given.has("write-artifact");
    throw usageError(
      "MISSING_ARGUMENT",
      "peaks sub-agent dispatch needs <role> (or --from-dag <file>, whose nodes name their roles)." +
        (artefact ? ` ${WRITE_ARTIFACT_HINT}` : ""),
      {
        data: { argument: "role" },
        nextActions: [`peaks sub-agent ${artefact ? "artifact" : "dispatch"} --help`],
      },
    );
  }
  if (given.has("max-parallel")) {
    throw usageError("CONFLICTING_FLAGS", "--max-parallel only applies with --from-dag.", {
      data: { flag: "max-parallel" },
    });
  }
  return assertRole(args.role);
}

/** The replay of this dispatch (for nextActions that re-run it with other choices). */
function replayOf(flags: DispatchInput["flags"], role: string, sessionId: string): Replay {
  return {
    role,
    sessionId,
    requestId: flags["request-id"],
    batchId: flags["batch-id"],
    brief: flags.brief === "pointer" ? undefined : flags.brief,
    heartbeatInterval: flags["heartbeat-interval"] === 30 ? undefined : flags["heartbeat-interval"],
    writeArtifacts: flags["write-artifact"],
    graphNode: flags["graph-node"],
    workflowId: flags["workflow-id"],
    // A detached replay does not need the in-process IDE; the budget choices carry over.
    extraWords: governanceWords(flags),
  };
}

interface Prepared {
  /** Everything the record needs, in the shape detached dispatch takes it. */
  inputs: RecordInputs;
  prompt: PromptInput;
  budgetStep: PromptBudgetStep;
}

/** Everything both modes share: the session, the prompt, the IDE, the artefacts, the runtime block. */
async function prepare(input: DispatchInput, ctx: Ctx): Promise<Prepared> {
  const { flags, given } = input;
  const role = checkArgs(input);
  assertDetachedFlags(flags.mode, given);
  const rid = optionalId(flags["request-id"], "--request-id");
  for (const name of ["batch-id", "graph-node"] as const) optionalId(flags[name], `--${name}`);
  const workflowId = optionalId(flags["workflow-id"], "--workflow-id") ?? null;
  const { project, sessionId, sessionSource } = await openSession(ctx, flags["session-id"]);
  // A swarm member dispatched again by role joins its batch as its node, with the node's files.
  const member = await swarmMemberTask(input, project, sessionId, role, rid);
  const givenBatch = optionalId(flags["batch-id"], "--batch-id");
  const graphNodeId = optionalId(flags["graph-node"], "--graph-node") ?? null;
  // Started now, awaited later: the git process and the reads overlap the rest of the checks.
  const gitHead = readGitHead(project.root);
  const surroundings = readSurroundings(ctx, project, sessionId, rid ?? null);
  surroundings.catch(() => {});
  // A live copy refuses; parallel DAG leaves, (rd) a draft plan or slices out warn.
  const checks = { rid, role, graphNodeId, givenBatch, now: ctx.now() };
  const fanout = dispatchChecks(project, sessionId, sessionSource === "binding", checks);
  const [prompt, roleSection] = await Promise.all([
    promptGiven(flags)
      ? readPromptInput(ctx, project, flags)
      : workflowPrompt(ctx, { project, sessionId, sessionSource }, role, rid, member),
    readRoleSection(ctx, role),
  ]);
  const detected = await detectIde(ctx.env, project.root, flags.ide);
  const replay = replayOf(flags, role, sessionId);
  const warnings: Warning[] = detected.source === "assumed" ? [IDE_ASSUMED] : [];
  // A detached run needs no in-process tool; it branches off once the record's inputs are known.
  if (flags.mode !== "detached" && !detected.ide.subAgent) {
    const { ideNotSupported } = await import("../../dispatch/ide_not_supported.ts");
    throw await ideNotSupported(ctx, project, detected.ide, replay, prompt);
  }
  const batchId = givenBatch ?? newUuid();
  const requestId = rid ?? generatedRequestId(batchId);
  const now = ctx.now();
  const { declared, metas } = await declareArtifactsLazily(
    project,
    { sessionId, requestId, role, flag: "write-artifact", at: isoTime(now) },
    flags["write-artifact"],
    (raw) => guardFlagPath(ctx, project, raw, { flag: "write-artifact" }),
  );
  const [around, git, fanoutFound] = await Promise.all([surroundings, gitHead, fanout]);
  warnings.push(...around.warnings);
  if (fanoutFound) warnings.push(fanoutFound);
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
  runtime.roleSection = roleSection;
  const budgetStep = promptBudgetStep(ctx, project, detected.ide, flags, () => {
    const plan = replayPlan(ctx, project, {
      ...replay,
      extraWords: flags.ide === undefined ? [] : ["--ide", flags.ide],
    }, prompt);
    return { words: plan.words, save: plan.save };
  });
  const inputs: RecordInputs = {
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
  };
  return { inputs, prompt, budgetStep };
}

/**
 * No prompt given for a swarm member (ui, rd-planning, qa-test-cases) of a planned request: its
 * node's prompt, and the flags that put the record in the swarm's batch as that node (those the
 * caller gave win). Undefined otherwise.
 */
async function swarmMemberTask(
  { flags, given }: DispatchInput,
  project: Project,
  sessionId: string,
  role: string,
  rid: string | undefined,
): Promise<string | undefined> {
  if (rid === undefined || promptGiven(flags)) return undefined;
  const { isSwarmRole, swarmMember } = await import("../../dispatch/swarm_task.ts");
  if (!isSwarmRole(role)) return undefined;
  const member = await swarmMember(project, sessionId, rid, role);
  if (!member) return undefined;
  flags["batch-id"] ??= member.batchId;
  flags["graph-node"] ??= member.nodeId;
  if (!given.has("write-artifact")) {
    flags["write-artifact"] = member.artifacts.map((path) => join(project.root, path));
  }
  return member.prompt;
}

/**
 * No prompt given: a swarm member's planned task, or the task of rd, qa and txt written from where
 * the request stands.
 */
async function workflowPrompt(
  ctx: Ctx,
  session: SessionContext,
  role: string,
  rid: string | undefined,
  member: string | undefined,
): Promise<PromptInput> {
  if (member !== undefined) return { text: member, source: "workflow", file: null };
  // Loaded only here: a dispatch with its own prompt needs none of the workflow's readers.
  const { isWorkflowRole, workflowTask } = await import("../../dispatch/workflow_task.ts");
  const task = rid !== undefined && isWorkflowRole(role)
    ? await workflowTask({
      project: session.project,
      sessionId: session.sessionId,
      sessionWords: session.sessionSource === "binding" ? [] : ["--session-id", session.sessionId],
      rid,
    }, role)
    : undefined;
  // Without a task to write, the usual refusal names the prompt flags.
  return task === undefined
    ? await readPromptInput(ctx, session.project, {})
    : { text: task, source: "workflow", file: null };
}

const IDE_ASSUMED: Warning = {
  code: "IDE_ASSUMED",
  message: "No IDE detected: assuming claude-code (pass --ide to choose).",
};

// In-process dispatch, the common mode: the record is written and the envelope hands the
// orchestrator the tool call that starts the sub-agent inside its own IDE.

async function dispatchInline(
  inputs: RecordInputs,
  budgetStep: PromptBudgetStep,
): Promise<CommandResult<unknown>> {
  const { project, runtime, flags, warnings } = inputs;
  const tuning = (await readTuning(project, warnings))(runtime.role);
  const written = await writeDispatch({
    project,
    runtime,
    ide: inputs.ide,
    brief: flags.brief,
    callerPrompt: inputs.prompt.text,
    artifactMetas: inputs.artifactMetas,
    git: inputs.git,
    graphNodeId: inputs.graphNodeId,
    workflowId: inputs.workflowId,
    now: inputs.now,
    tuning,
  }, budgetStep);
  warnings.push(...written.budget.warnings);
  const overLimit = batchOverLimit(written.record.dispatchedInBatch);
  if (overLimit) warnings.push(overLimit);
  const { role, batchId } = runtime;
  return {
    data: dispatchData(inputs, written),
    warnings,
    // The next step is the tool call in data, then finalize: no command to run before it.
    nextActions: [],
    human: [
      `dispatched ${role} as #${written.record.dispatchedInBatch} of batch ${batchId} (${inputs.ide.id}, brief ${flags.brief})`,
      `record: ${written.displayPath}`,
      `tool call for the host to make (the sub-agent's brief is ${written.record.promptSize} bytes):`,
      toolCallText(written.toolCall!),
    ].join("\n"),
  };
}

function batchOverLimit(n: number): Warning | undefined {
  if (n <= BATCH_SOFT_LIMIT) return undefined;
  return {
    code: "BATCH_OVER_LIMIT",
    message:
      `The batch now has ${n} members; over ${BATCH_SOFT_LIMIT} in parallel is hard to converge.`,
    count: n,
  };
}

/**
 * What the orchestrator needs and nothing twice: the tool call to make, the record to finalize,
 * the line to show. The prompt appears once (inside the inline tool call) or not at all (pointer).
 */
function dispatchData(inputs: RecordInputs, written: WrittenDispatch): Record<string, unknown> {
  const { runtime } = inputs;
  const { budget } = written;
  const toolCall = written.toolCall!;
  return withoutEmpty({
    envelopeVersion: ENVELOPE_VERSION,
    toolCall,
    toolCallAliases: written.aliases,
    // The short id every --record takes (finalize, heartbeat, brief).
    record: recordIdOf(written.path),
    // Only when peaks chose it: a caller that passed --batch-id has it, one that did not needs it
    // for `sub-agent status --batch`, `shared-read --batch` and its next dispatch into the batch.
    batchId: inputs.replay.batchId === undefined ? runtime.batchId : undefined,
    orchestratorVisibleHint: visibleHint(toolCall.name, runtime.role, runtime.requestId),
    artifactsPublicPaths: runtime.declaredArtifacts,
    headroomResult: budget.headroomCompressed ? budget.headroomResult : undefined,
    forcedAt: budget.forcedAt,
    // A host whose tool answers before the sub-agent ends (Codex) says what to call next.
    instructions: inputs.ide.subAgent?.followUp ? [inputs.ide.subAgent.followUp] : undefined,
  });
}

export default spec;
