/**
 * peaks' OpenCode plugin. OpenCode (1.18.33) has no command hooks: a plugin is a module it runs
 * in-process. This one hands the hooks peaks listens to to `peaks hooks run --host opencode
 * --event <hook>`, with the event on stdin in the fields that command reads, and acts on its
 * answer:
 * - `tool.execute.before` on `task` (a sub-agent's prompt) and `bash` (a sub-agent's `git commit`
 *   or `git push` is refused: the one place this plugin throws, which OpenCode turns into the
 *   tool's result);
 * - `session.created` of a child session: the sub-agent started, with its session id;
 * - `tool.execute.after` on `task`: the sub-agent ended, with its return;
 * - `experimental.chat.system.transform`: the resume line, asked for once per session (again after
 *   a compaction), goes into the orchestrator's system prompt.
 * Any other failure is swallowed: a hook that throws ends OpenCode's run.
 *
 * Install: `opencode plugin <this folder>` (`-g` for every project).
 */
import { spawn } from "node:child_process";

type Json = Record<string, unknown>;

const TIMEOUT_MS = 10_000;

function objectOf(value: unknown): Json {
  return value && typeof value === "object" && !Array.isArray(value) ? value as Json : {};
}

/** `peaks hooks run` for one hook; its JSON answer, or undefined whatever goes wrong. */
function peaks(event: string, payload: Json, cwd: string): Promise<Json | undefined> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("peaks", ["hooks", "run", "--host", "opencode", "--event", event], {
        cwd,
        stdio: ["pipe", "pipe", "ignore"],
      });
    } catch {
      return resolve(undefined);
    }
    let out = "";
    let done = false;
    const timer = setTimeout(() => {
      child.kill();
      finish();
    }, TIMEOUT_MS);
    const finish = (value?: Json) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    child.on("error", () => finish());
    child.stdout?.on("data", (chunk) => out += String(chunk));
    child.on("close", () => {
      try {
        finish(out.trim() ? objectOf(JSON.parse(out)) : undefined);
      } catch {
        finish();
      }
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(JSON.stringify({ ...payload, cwd }));
  });
}

function specific(answer: Json | undefined): Json {
  return objectOf(objectOf(answer).hookSpecificOutput);
}

interface Ctx {
  directory: string;
}

interface ToolInput {
  tool: string;
  sessionID: string;
  callID?: string;
  args?: Json;
}

export const PeaksHooks = (ctx: Ctx) => {
  const dir = ctx.directory;
  /** Sessions that are sub-agents (created with a parent). */
  const children = new Set<string>();
  /** The resume line per orchestrator session, asked for once. */
  const lines = new Map<string, string>();
  const agentOf = (session: string) => children.has(session) ? session : undefined;

  return Promise.resolve({
    event: async ({ event }: { event: { type: string; properties?: Json } }) => {
      try {
        const properties = objectOf(event.properties);
        if (event.type === "session.compacted") lines.delete(String(properties.sessionID));
        if (event.type !== "session.created") return;
        const info = objectOf(properties.info);
        if (typeof info.id !== "string" || typeof info.parentID !== "string") return;
        children.add(info.id);
        await peaks("session.created", { agent_id: info.id, session_id: info.parentID }, dir);
      } catch {
        // never end the run
      }
    },
    "tool.execute.before": async (input: ToolInput, output: { args?: Json }) => {
      if (input.tool !== "task" && input.tool !== "bash") return;
      let reason: unknown;
      try {
        const answer = await peaks("tool.execute.before", {
          tool_name: input.tool,
          tool_input: objectOf(output.args),
          agent_id: agentOf(input.sessionID),
          session_id: input.sessionID,
        }, dir);
        const said = specific(answer);
        if (said.permissionDecision === "deny") reason = said.permissionDecisionReason;
      } catch {
        return;
      }
      if (typeof reason === "string" && reason) throw new Error(reason);
    },
    "tool.execute.after": async (
      input: ToolInput,
      output: { output?: unknown; metadata?: Json },
    ) => {
      if (input.tool !== "task") return;
      try {
        await peaks("tool.execute.after", {
          tool_name: input.tool,
          tool_input: objectOf(input.args),
          tool_response: typeof output.output === "string" ? output.output : "",
          agent_id: objectOf(output.metadata).sessionId,
          session_id: input.sessionID,
        }, dir);
      } catch {
        // never end the run
      }
    },
    "experimental.chat.system.transform": async (
      input: { sessionID?: string },
      output: { system: string[] },
    ) => {
      try {
        const session = input.sessionID ?? "";
        if (children.has(session)) return;
        if (!lines.has(session)) {
          const answer = await peaks("experimental.chat.system.transform", {
            session_id: session,
            source: "startup",
          }, dir);
          const text = specific(answer).additionalContext;
          lines.set(session, typeof text === "string" ? text : "");
        }
        const line = lines.get(session);
        if (line) output.system.push(line);
      } catch {
        // never end the run
      }
    },
  });
};
