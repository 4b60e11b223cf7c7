/**
 * The tool call the orchestrating LLM makes to start a sub-agent inside its
 * own IDE, per the IDE table. Hosts without an in-process sub-agent tool get
 * IDE_NOT_SUPPORTED with a runnable alternative instead.
 */
import type { IdeEntry } from "../../core/ide/ide.ts";
import type { ToolCall } from "../../core/record/record.ts";
import { commandLine } from "../../core/shell.ts";

export const EXPECTED_COMPLETION_SECONDS = 45;

export interface BuiltToolCall {
  toolCall: ToolCall;
  aliases: string[];
}

export function buildToolCall(
  ide: IdeEntry,
  role: string,
  rid: string,
  prompt: string,
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
      args: { subagent_type: "general-purpose", description: `${role} for rid=${rid}`, prompt },
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
 * from the record, named by file name alone to keep the envelope small.
 */
export function pointerPrompt(recordFile: string): string {
  const brief = commandLine(["peaks", "sub-agent", "brief", "--record", recordFile]);
  return `Run \`${brief}\` and follow it.`;
}

export function visibleHint(tool: string, role: string, rid: string, batchId: string): string {
  return `⏳ Spawning sub-agent via ${tool} tool: ${role} for rid=${rid}, batch-id=${batchId} (ETA ~${EXPECTED_COMPLETION_SECONDS}s)`;
}
