import { within } from "../../infra/timer.ts";
import { isoTime } from "../../infra/ids.ts";
import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import type { Ctx } from "../../infra/command/ctx.ts";
import { type Project, resolveProject } from "../../workspace/project.ts";
import { isHookHost } from "../../hooks/hosts.ts";
import { objectOf, readEvent, textOf } from "../../hooks/event.ts";
import { handleEvent, type HookAnswer } from "../../hooks/handle.ts";
import { logProblem } from "../../hooks/log.ts";

const STDIN_TIMEOUT_MS = 1000;
const STDIN_MAX_BYTES = 1024 * 1024;
/** Well inside the 10 s timeout peaks installs: a busy lock is given up on, not waited out. */
export const HOOK_DEADLINE_MS = 5000;

async function answer(
  ctx: Ctx,
  flags: { host?: string; event?: string },
  found: { project?: Project },
): Promise<HookAnswer> {
  const host = flags.host ?? "";
  if (!isHookHost(host)) return { did: "unknown-host" };
  const text = await ctx.stdin.readAll({ timeoutMs: STDIN_TIMEOUT_MS, maxBytes: STDIN_MAX_BYTES });
  let raw: Record<string, unknown> = {};
  try {
    raw = objectOf(text ? JSON.parse(text) : {});
  } catch {
    return { did: "stdin-not-json" };
  }
  const name = flags.event ?? textOf(raw.hook_event_name) ?? textOf(raw.hookName) ?? "";
  const event = readEvent(host, name, raw);
  if (event.kind === "other") return { did: "ignored" };
  const dir = ctx.global.project === undefined ? event.cwd : undefined;
  found.project = await resolveProject(dir ? { ...ctx, cwd: dir } : ctx);
  return await handleEvent(found.project, event, ctx.now());
}

export default defineCommand({
  name: "hooks run",
  description:
    "The command a host's lifecycle hook runs (`peaks hooks install` writes it): reads the host's event JSON " +
    "on stdin (1 s, 1 MiB) and acts on it. The tool call that starts a sub-agent marks its dispatch record " +
    "started, with the host's id of the sub-agent; the sub-agent's end closes the record (done with its " +
    "return JSON, failed with ended-without-report without one; a record already closed is left alone); " +
    "session start adds the resume line (request, step, live and stale sub-agents, next action; at most " +
    "300 bytes) to the orchestrator's context; a sub-agent's `git commit` or `git push` is refused. It " +
    "always exits 0 and prints nothing but the host's answer: bad input, no workspace or a busy lock are " +
    "logged to .peaks/_runtime/hooks.log.",
  flags: {
    host: flag.string(
      "The host that runs the hook (claude-code, qwen-code, gemini, codex, copilot; opencode from peaks' OpenCode plugin).",
      {
        placeholder: "<host>",
        max: 64,
      },
    ),
    event: flag.string("The host's event name (read from the event JSON when absent).", {
      placeholder: "<event>",
      max: 64,
    }),
  },
  examples: [
    `echo '{"hook_event_name":"SessionStart","source":"startup"}' | peaks hooks run --host claude-code --event SessionStart`,
  ],
  async run({ flags }, ctx) {
    const found: { project?: Project } = {};
    let result: HookAnswer;
    try {
      result = await within(answer(ctx, flags, found), HOOK_DEADLINE_MS) ?? { did: "deadline" };
    } catch (error) {
      result = { did: `error: ${error instanceof Error ? error.message : String(error)}` };
    }
    const problem = result.did.startsWith("error") || result.did === "deadline" ||
      result.did === "stdin-not-json" || result.did === "unknown-host";
    if (problem) {
      found.project ??= await resolveProject(ctx).catch(() => undefined);
      await logProblem(found.project?.layout.runtime, {
        at: isoTime(ctx.now()),
        host: flags.host ?? null,
        event: flags.event ?? null,
        problem: result.did,
      });
    }
    if (result.output && !ctx.global.json) {
      await ctx.stdout.write(`${JSON.stringify(result.output)}\n`);
    }
    return {
      data: { did: result.did, ...(result.output ? { output: result.output } : {}) },
      raw: !ctx.global.json,
    };
  },
});
