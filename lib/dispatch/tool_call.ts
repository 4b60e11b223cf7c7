/**
 * The tool call the orchestrating LLM makes to start a sub-agent inside its
 * own IDE, as the host declares it (lib/hosts/<host>.ts). Hosts without an in-process sub-agent tool get
 * IDE_NOT_SUPPORTED with a runnable alternative instead.
 */
import { type IdeEntry, PROMPT_KEYS } from "../hosts/registry.ts";
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

/** A DAG node's short name for hosts whose tool takes one: `<role>` or `<role>-<node>`. */
export function toolName(role: string, node?: string | null): string {
  return node && node !== role ? `${role}-${node}` : role;
}

export function buildToolCall(
  ide: IdeEntry,
  role: string,
  rid: string,
  prompt: string,
  node?: string | null,
): BuiltToolCall {
  const tool = ide.subAgent!;
  const toolCall: ToolCall = {
    name: tool.tool,
    ...(tool.namespace ? { namespace: tool.namespace } : {}),
    args: tool.args({
      description: toolDescription(role, rid, node),
      name: toolName(role, node),
      prompt,
    }),
  };
  if (!tool.verified) {
    toolCall.verified = false;
    toolCall.source = tool.source;
  }
  return { toolCall, aliases: tool.aliases };
}

/** The argument of a tool call that carries the sub-agent's prompt (`prompt`, or another key a host's tool takes). */
export function promptKey(toolCall: ToolCall): string {
  if ("prompt" in toolCall.args) return "prompt";
  return PROMPT_KEYS.find((key) => key in toolCall.args) ?? "prompt";
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

/** The tool call as a person reads it: its name and arguments, a long text shown by its size. */
export function toolCallText(call: { name: string; args: Record<string, unknown> }): string {
  const args = Object.fromEntries(
    Object.entries(call.args).map((
      [key, value],
    ) => [
      key,
      typeof value === "string" && value.length > 160 ? `<${value.length} chars>` : value,
    ]),
  );
  return `  ${call.name} ${JSON.stringify(args, null, 2).replaceAll("\n", "\n  ")}`;
}
