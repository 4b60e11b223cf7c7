/**
 * One hook call: the event in peaks' terms, what it changes in the records, and the answer the
 * host reads on stdout (refusal or added context, in the host's own format). Problems are
 * returned for the log, never thrown: the caller exits 0 whatever happens.
 *
 * Hosts run some hooks on every shell call: that path loads nothing but this file and the event
 * reader. The records (and the host table dispatch uses) and the workflow behind the resume line
 * are loaded only by the events that need them.
 */
import type { Project } from "../workspace/project.ts";
import { isValidId } from "../infra/ids.ts";
import { HOOK_HOST_FACTS, type HookHost } from "./hosts.ts";
import type { HookEvent } from "./event.ts";

export interface HookAnswer {
  /** What to print for the host (JSON), if anything. */
  output?: Record<string, unknown>;
  /** What happened, for the log and --json. */
  did: string;
}

/** `git commit` or `git push`, also behind `git -C dir` or other global options, in a command line. */
const GIT_WRITE = /(^|[;&|(\s])git(\s+-[^\s]+(\s+[^-\s][^\s]*)?)*\s+(commit|push)\b/;

export function isGitWrite(command: string): boolean {
  return GIT_WRITE.test(command);
}

export const COMMIT_REFUSAL =
  "peaks: a sub-agent does not commit or push; leave the change in the working tree and report it.";

export function denyAnswer(host: HookHost, event: string, reason: string) {
  switch (HOOK_HOST_FACTS[host].deny) {
    case "decision":
      return { decision: "deny", reason };
    case "top-level":
      return { permissionDecision: "deny", permissionDecisionReason: reason };
    default:
      return {
        hookSpecificOutput: {
          hookEventName: event,
          permissionDecision: "deny",
          permissionDecisionReason: reason,
        },
      };
  }
}

/**
 * Claude Code's answer also carries the top-level form: Copilot CLI runs a Claude Code plugin's hooks
 * but reads only that one, and Claude Code accepts both in one answer.
 */
export function contextAnswer(host: HookHost, event: string, text: string) {
  const specific = { hookSpecificOutput: { hookEventName: event, additionalContext: text } };
  switch (HOOK_HOST_FACTS[host].context) {
    case "top-level":
      return { additionalContext: text };
    case "both":
      return { additionalContext: text, ...specific };
    default:
      return specific;
  }
}

async function subAgentEvent(
  project: Project,
  sid: string,
  event: HookEvent,
  now: Date,
): Promise<string> {
  const { markEnded, markStarted, recordAwaitingId, recordForAgent, recordForPrompt } =
    await import("./records.ts");
  if (event.kind === "dispatch" || event.kind === "launched") {
    if (!event.prompt) return "no-prompt";
    const path = await recordForPrompt(project, sid, event.prompt);
    return path ? `${event.kind}:${await markStarted(path, event, now)}` : "not-a-peaks-sub-agent";
  }
  if (event.kind === "agent-start") {
    if (await recordForAgent(project, sid, event.host, event.agentId!)) return "known";
    const waiting = await recordAwaitingId(project, sid, event.host);
    return waiting
      ? `start:${await markStarted(waiting.path, event, now)}`
      : "not-a-peaks-sub-agent";
  }
  // agent-end / agent-failed: by the host's id, else by the prompt of a synchronous tool call.
  const byId = event.agentId
    ? (await recordForAgent(project, sid, event.host, event.agentId))?.path
    : undefined;
  const path = byId ??
    (event.prompt ? await recordForPrompt(project, sid, event.prompt) : undefined);
  return path ? `end:${await markEnded(path, event, now)}` : "not-a-peaks-sub-agent";
}

export async function handleEvent(
  project: Project,
  event: HookEvent,
  now: Date,
): Promise<HookAnswer> {
  if (event.kind === "other") return { did: "ignored" };
  if (event.kind === "shell") {
    if (event.agentId && event.command && isGitWrite(event.command)) {
      return { output: denyAnswer(event.host, event.name, COMMIT_REFUSAL), did: "refused-commit" };
    }
    return { did: "allowed" };
  }
  const { peekBoundSession } = await import("../statusline/peek.ts");
  const sid = await peekBoundSession(project);
  if (!sid || !isValidId(sid)) return { did: "no-session" };
  if (event.kind === "session-start") {
    const { resumeLine } = await import("./resume.ts");
    const line = await resumeLine(project, sid, now);
    return { output: contextAnswer(event.host, event.name, line), did: "resume-line" };
  }
  return { did: await subAgentEvent(project, sid, event, now) };
}
