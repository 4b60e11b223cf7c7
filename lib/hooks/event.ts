/**
 * A host's hook event, read from its stdin JSON into the few facts peaks acts on. Every field is
 * guarded: the JSON comes from the host, but a hook must survive anything on stdin.
 */
import { HOOK_HOST_FACTS, type HookHost } from "./hosts.ts";

export type HookKind =
  | "session-start"
  | "dispatch"
  | "launched"
  | "agent-start"
  | "agent-end"
  | "agent-failed"
  | "shell"
  | "other";

export interface HookEvent {
  kind: HookKind;
  host: HookHost;
  /** The event name as the host spells it. */
  name: string;
  cwd?: string;
  /** The host's id of the sub-agent (a sub-agent's own hooks carry it too). */
  agentId?: string;
  /** The sub-agent's prompt, from the tool call that starts it. */
  prompt?: string;
  /** Text the sub-agent ended with. */
  response?: string;
  /** A shell command about to run. */
  command?: string;
  error?: string;
  source?: string;
}

const TEXT_MAX = 256 * 1024;

export function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

export function textOf(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 && value.length <= TEXT_MAX
    ? value
    : undefined;
}

/** `PreToolUse`, `preToolUse` and `pre_tool_use` are one event. */
function norm(name: string): string {
  return name.replace(/_/g, "").toLowerCase();
}

/** The text of a tool's answer: a string, Gemini's llmContent parts, Copilot's textResultForLlm. */
function responseText(value: unknown): string | undefined {
  if (typeof value === "string") return textOf(value);
  const o = objectOf(value);
  const content = o.llmContent ?? o.textResultForLlm ?? o.text_result_for_llm ?? o.content;
  if (Array.isArray(content)) {
    return textOf(content.map((part) => textOf(objectOf(part).text) ?? "").join("\n"));
  }
  return textOf(content) ?? textOf(o.result);
}

/** The sub-agent id a tool's answer names: Claude's agentId, Codex's JSON-string agent_id. */
function launchedId(value: unknown): string | undefined {
  if (typeof value === "string") {
    try {
      return textOf(objectOf(JSON.parse(value)).agent_id);
    } catch {
      return undefined;
    }
  }
  const o = objectOf(value);
  return o.status === "async_launched" || o.isAsync === true ? textOf(o.agentId) : undefined;
}

interface Fields {
  tool?: string;
  input: Record<string, unknown>;
  output: unknown;
  agentId?: string;
  callId?: string;
}

function fields(raw: Record<string, unknown>): Fields {
  return {
    tool: textOf(raw.tool_name) ?? textOf(raw.toolName),
    input: objectOf(raw.tool_input ?? raw.toolArgs ?? raw.toolInput),
    output: raw.tool_response ?? raw.toolResult ?? raw.tool_result,
    agentId: textOf(raw.agent_id) ?? textOf(raw.agentId),
    callId: textOf(raw.tool_call_id),
  };
}

function toolEvent(base: HookEvent, f: Fields, phase: "pre" | "post" | "fail"): HookEvent {
  const facts = HOOK_HOST_FACTS[base.host];
  const tool = f.tool ?? "";
  if (facts.subAgentTools.includes(tool)) {
    const prompt = textOf(f.input.prompt) ?? textOf(f.input.message);
    if (phase === "pre") {
      // Qwen names the sub-agent `<type>-<tool call id>` before it starts.
      const type = textOf(f.input.subagent_type);
      const qwenId = base.host === "qwen-code" && type && f.callId
        ? `${type}-${f.callId}`
        : undefined;
      return { ...base, kind: "dispatch", prompt, agentId: qwenId };
    }
    if (phase === "fail") return { ...base, kind: "agent-failed", prompt, error: "tool-failed" };
    const launched = launchedId(f.output);
    if (launched) return { ...base, kind: "launched", prompt, agentId: launched };
    if (base.host === "qwen-code" || base.host === "codex") return { ...base, kind: "other" };
    return { ...base, kind: "agent-end", prompt, response: responseText(f.output) };
  }
  if (phase === "pre" && facts.shellTools.includes(tool)) {
    return { ...base, kind: "shell", command: textOf(f.input.command) };
  }
  return { ...base, kind: "other" };
}

/** The event in peaks' terms; `name` is the event the hook was installed for. */
export function readEvent(host: HookHost, name: string, raw: Record<string, unknown>): HookEvent {
  const f = fields(raw);
  const base: HookEvent = {
    kind: "other",
    host,
    name,
    cwd: textOf(raw.cwd),
    agentId: f.agentId,
    source: textOf(raw.source),
  };
  switch (norm(name)) {
    case "sessionstart":
    case "experimental.chat.system.transform":
      return { ...base, kind: "session-start" };
    case "pretooluse":
    case "beforetool":
    case "tool.execute.before":
      return toolEvent(base, f, "pre");
    case "posttooluse":
    case "aftertool":
    case "tool.execute.after":
      return toolEvent(base, f, "post");
    case "posttoolusefailure":
      return toolEvent(base, f, "fail");
    // OpenCode: a child session (one with a parent) is a sub-agent starting.
    case "session.created":
    case "subagentstart":
      return { ...base, kind: f.agentId ? "agent-start" : "other" };
    case "subagentstop":
      return f.agentId
        ? {
          ...base,
          kind: "agent-end",
          response: textOf(raw.last_assistant_message) ?? textOf(raw.response),
        }
        : base;
    case "stopfailure":
      return f.agentId
        ? { ...base, kind: "agent-failed", error: textOf(raw.error)?.slice(0, 200) ?? "error" }
        : base;
    default:
      return base;
  }
}
