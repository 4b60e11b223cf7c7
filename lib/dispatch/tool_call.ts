/**
 * The tool call the orchestrating LLM makes to start a sub-agent inside its
 * own IDE, per the IDE table. Hosts without an in-process sub-agent tool get
 * IDE_NOT_SUPPORTED with a runnable alternative instead.
 */
import type { IdeEntry } from "../hosts/registry.ts";
import type { ToolCall } from "../record/record.ts";
import { commandLine, projectArgs } from "../infra/shell.ts";

export const EXPECTED_COMPLETION_SECONDS = 45;

export interface BuiltToolCall {
  toolCall: ToolCall;
  aliases: string[];
}

/**
 * The tool call's short description: `<role> for rid=<rid>`, or `<role>:<node>` when a DAG node's
 * id is not its role, so two slices of one role (two `rd` nodes) are told apart in the host's view
 * and in the results that come back.
 */
export function toolDescription(role: string, rid: string, node?: string | null): string {
  return `${node && node !== role ? `${role}:${node}` : role} for rid=${rid}`;
}

export function buildToolCall(
  ide: IdeEntry,
  role: string,
  rid: string,
  prompt: string,
  node?: string | null,
): BuiltToolCall {
  const tool = ide.inProcess!;
  const toolCall: ToolCall = tool.input === "message"
    ? {
      name: tool.tool,
      ...(tool.namespace ? { namespace: tool.namespace } : {}),
      args: { message: prompt },
    }
    : {
      name: tool.tool,
      args: {
        subagent_type: "general-purpose",
        description: toolDescription(role, rid, node),
        prompt,
      },
    };
  if (!tool.verified) toolCall.verified = false;
  return { toolCall, aliases: tool.aliases };
}

/** The argument of a tool call that carries the sub-agent's prompt (`prompt`, or `message` for spawn_agent). */
export function promptKey(toolCall: ToolCall): "prompt" | "message" {
  return "message" in toolCall.args && !("prompt" in toolCall.args) ? "message" : "prompt";
}

export function promptOf(toolCall: ToolCall): string {
  return String(toolCall.args[promptKey(toolCall)] ?? "");
}

/**
 * The short prompt of `--brief pointer`: the sub-agent fetches its real brief
 * from the record, named by file name alone to keep the envelope small. A
 * sub-agent the host starts in a worktree of its own names the project root.
 */
export function pointerPrompt(recordFile: string, projectRoot?: string): string {
  const brief = commandLine([
    "peaks",
    "sub-agent",
    "brief",
    "--record",
    recordFile,
    ...(projectRoot ? projectArgs(projectRoot) : []),
  ]);
  return `Run \`${brief}\` and follow it.`;
}

export function visibleHint(tool: string, role: string, rid: string): string {
  return `⏳ Spawning sub-agent via ${tool} tool: ${role} for rid=${rid} (ETA ~${EXPECTED_COMPLETION_SECONDS}s)`;
}
