import { defineCommand } from "../../infra/command/spec.ts";
import type { Ctx } from "../../infra/command/ctx.ts";
import { resolveProject } from "../../workspace/project.ts";
import { isoTime, isValidId } from "../../infra/ids.ts";
import type { ContextReading } from "../../presence/presence.ts";
import { callerFileId, callerIdFromEnv, presenceView } from "../../presence/caller.ts";
import { writeJsonAtomic } from "../../infra/fs/files.ts";
import { batchCounts, batchHeader } from "../../batch/status_line.ts";
import { safeField } from "../../infra/terminal_text.ts";
import {
  peekBoundSession,
  peekContext,
  peekOpenBatch,
  peekPresence,
} from "../../statusline/peek.ts";

const STDIN_TIMEOUT_MS = 250;
const MAX_STDIN_BYTES = 1024 * 1024;
const REWRITE_AFTER_MS = 30_000;

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

function number(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 && value.length < 4096 ? value : undefined;
}

/** The context-window reading in Claude Code's status JSON, every field guarded. */
export function readingFromStatus(
  status: Record<string, unknown>,
  at: string,
): ContextReading | undefined {
  const window = record(status.context_window);
  const windowTokens = number(window.context_window_size);
  const usage = record(window.current_usage);
  const used = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
    .map((key) => number(usage[key]))
    .filter((n): n is number => n !== undefined);
  const usedTokens = used.length ? used.reduce((a, b) => a + b, 0) : undefined;
  let ratioPct = number(window.used_percentage);
  if (ratioPct === undefined && windowTokens && usedTokens !== undefined) {
    ratioPct = (usedTokens / windowTokens) * 100;
  }
  if (ratioPct === undefined || ratioPct > 1000) return undefined;
  return {
    ratioPct: Math.round(ratioPct * 10) / 10,
    source: "statusline",
    at,
    windowTokens: windowTokens ?? null,
    usedTokens: usedTokens ?? null,
  };
}

async function line(ctx: Ctx): Promise<string> {
  const raw = await ctx.stdin.readAll({ timeoutMs: STDIN_TIMEOUT_MS, maxBytes: MAX_STDIN_BYTES });
  let status: Record<string, unknown> = {};
  try {
    status = record(raw ? JSON.parse(raw) : {});
  } catch {
    status = {};
  }
  const workspace = record(status.workspace);
  const dir = ctx.global.project === undefined
    ? text(workspace.project_dir) ?? text(workspace.current_dir) ?? text(status.cwd)
    : undefined;
  const project = await resolveProject(dir ? { ...ctx, cwd: dir } : ctx);
  // Display only: files are read without zod (see lib/statusline/peek.ts) to stay fast.
  const sessionId = ctx.env.get("PEAKS_SESSION_ID") || await peekBoundSession(project);
  if (!sessionId || !isValidId(sessionId)) return "peaks · no session (run peaks workspace init)";

  const callerRaw = text(status.session_id);
  const callerId = callerRaw ? await callerFileId(callerRaw) : await callerIdFromEnv(ctx.env);
  const now = ctx.now();
  const fresh = readingFromStatus(status, isoTime(now));
  const [presence, stored, swarm] = await Promise.all([
    peekPresence(project, sessionId, callerId),
    peekContext(project, sessionId),
    peekOpenBatch(project, sessionId, now).catch(() => undefined),
  ]);
  if (
    fresh &&
    (!stored || stored.ratioPct !== fresh.ratioPct ||
      now.getTime() - Date.parse(stored.at) > REWRITE_AFTER_MS)
  ) {
    await writeJsonAtomic(project.layout.context(sessionId), fresh);
  }
  const view = presenceView(presence, fresh ?? stored);
  const parts = [`⛰ ${safeField(view.skill ?? "peaks")}`];
  if (view.role) parts.push(safeField(view.role));
  if (view.gate) parts.push(`gate ${safeField(view.gate)}`);
  if (swarm) {
    const stale = batchCounts(swarm).stale;
    parts.push(`${batchHeader(swarm)}${stale ? ` ⚠ ${stale} stale` : ""}`);
  }
  if (view.context.ratioPct !== null) {
    parts.push(
      `ctx ${view.context.ratioPct}%${
        view.context.action === "ok" ? "" : ` ${view.context.action}`
      }`,
    );
  }
  return parts.join(" · ");
}

export default defineCommand({
  name: "statusline render",
  description:
    "Reads Claude Code's status JSON on stdin (250 ms timeout), stores its context-window reading for " +
    "`peaks skill presence`, and prints one short line: skill, role, gate, the progress of the latest open " +
    "sub-agent batch (swarm 2/3 running), context %. It never prints an error " +
    "and always exits 0, because a failing status line blanks the user's terminal line.",
  flags: {},
  examples: ['echo \'{"context_window":{"used_percentage":41}}\' | peaks statusline render'],
  async run(_input, ctx) {
    let output: string;
    try {
      output = await line(ctx);
    } catch {
      output = "⛰ peaks";
    }
    if (!ctx.global.json) await ctx.stdout.write(`${output}\n`);
    return { data: { line: output }, raw: true };
  },
});
