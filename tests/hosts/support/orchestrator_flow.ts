/**
 * One host as the orchestrator: the scripted model runs peaks' startup and
 * dispatch through the host's shell tool, calls the tool call the envelope
 * returns unchanged, and the real host starts the sub-agent. The scripted
 * sub-agent reads its pointer brief, beats twice and ends (in Gemini CLI with
 * complete_task, as the brief tells it); the orchestrator finalizes with the
 * result that came back. Returns what a scenario asserts on.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../../lib/infra/std.ts";
import { recordPathOf } from "../../support/subagent.ts";
import { briefFacts } from "./claude_flow.ts";
import type { HostAdapter } from "./hosts.ts";
import { HOST_TIMEOUT_MS, readJson, world } from "./scenario.ts";
import { sideAnswer, text, tools, type Turn, type View } from "./standin.ts";

export interface OrchestratorCase {
  host: HostAdapter;
  /** The `--ide` peaks must detect from the host's own environment. */
  ide: string;
  /** The host's command line (headless, with the permissions a peaks orchestrator needs). */
  args: string[];
  /** The task on stdin, when the host reads it from there (else it is in args). */
  stdin: boolean;
}

/** A tool result as text: Gemini CLI wraps it in {"output": …}; some hosts prefix "Output:". */
export function unwrap(result: string): string {
  try {
    const value = JSON.parse(result);
    if (typeof value?.output === "string") return value.output;
  } catch {
    // plain text
  }
  return result;
}

/** The first line of a tool result that holds a JSON object (peaks prints one with --json). */
// deno-lint-ignore no-explicit-any
export function envelopeOf(result: string): any {
  for (const line of unwrap(result).split("\n")) {
    const at = line.indexOf("{");
    if (at < 0) continue;
    try {
      return JSON.parse(line.slice(at));
    } catch {
      // not this line
    }
  }
  throw new Error(`no envelope in ${result.slice(0, 400)}`);
}

/** The sub-agent's return JSON inside what the host's tool answered (escaped once by Gemini CLI). */
export function returnedJson(result: string): string {
  let body = unwrap(result);
  const at = body.indexOf("Result:");
  if (at >= 0) body = String(JSON.parse(body.slice(at + "Result:".length)).response);
  const match = body.match(/\{"role":.*?"diffSummary":"[^"]*"\}/);
  if (!match) throw new Error(`no result JSON came back: ${body.slice(0, 400)}`);
  return match[0];
}

export async function orchestratorScenario(c: OrchestratorCase): Promise<void> {
  const ask = `Plan the login feature with peaks. [${c.ide} orchestrator]`;
  // deno-lint-ignore no-explicit-any
  let envelope: any;
  const orchestrator = (view: View): Turn => {
    switch (view.turn) {
      case 0:
        return tools(c.host.shell("peaks session start --skill peaks-code --json"));
      case 1:
        return tools(c.host.shell(
          'peaks sub-agent dispatch rd --prompt "Write the login plan." --brief pointer --json',
        ));
      case 2: {
        envelope = envelopeOf(view.toolResults.at(-1)!);
        const call = envelope.data.toolCall;
        return tools({ name: call.name, input: call.args });
      }
      case 3: {
        const json = returnedJson(view.toolResults.at(-1) ?? "");
        return tools(c.host.shell(
          `peaks sub-agent finalize --record ${envelope.data.record} --outcome done --result-json '${json}' --json`,
        ));
      }
      default:
        return text("The plan is done.");
    }
  };
  const subAgent = pointerSubAgent(c.host, `${c.ide}-sub-beat`);
  await using w = await world(c.host, (view: View) => {
    if (view.tools.length === 0) return sideAnswer(view);
    return view.userText.includes(ask) ? orchestrator(view) : subAgent(view);
  });
  const run = await w.sandbox.run(c.host.id, {
    args: c.stdin ? c.args : [...c.args, ask],
    stdin: c.stdin ? ask : undefined,
    env: w.hostEnv,
    timeoutMs: HOST_TIMEOUT_MS,
  });
  assertEquals(run.code, 0, run.stdout + run.stderr);

  // Detected from the host's own variables; the tool is the host's own, offered in its first request.
  const calls = w.standIn.calls().filter((call) => call.view!.tools.length > 0);
  const toolCall = envelope.data.toolCall;
  assert(calls[0].view!.tools.includes(toolCall.name), `${toolCall.name} not offered`);
  assertEquals(toolCall.verified, undefined);
  // The host started the sub-agent itself, with the brief's pointer as its task.
  const sub = calls.filter((call) => !call.view!.userText.includes(ask));
  assert(sub.length >= 3, "the sub-agent ran");
  assertStringIncludes(sub[0].view!.userText, toolCall.args.prompt);

  const record = await readJson(
    join(w.sandbox.project, recordPathOf(w.sandbox.project, envelope.data.record)),
  );
  assertEquals([record.status, record.ide], ["done", c.ide]);
  assert(record.heartbeats.some((b: { note: string }) => b.note === `${c.ide}-sub-beat`));
  assertEquals(record.result?.rid, record.requestId);
  const last = calls.filter((call) => call.view!.userText.includes(ask)).at(-1)!;
  const finalize = envelopeOf(last.view!.toolResults.at(-1)!);
  assertEquals([finalize.ok, finalize.warnings], [true, []]);
}

/**
 * The scripted sub-agent of a pointer brief: reads the brief, beats twice, returns its JSON (with
 * complete_task where the brief says so).
 */
export function pointerSubAgent(host: HostAdapter, note: string): (view: View) => Turn {
  return (view) => {
    const pointer = view.userText.match(/Run `(peaks sub-agent brief --record \S+)` and follow it/);
    if (view.turn === 0) return tools(host.shell(pointer![1]));
    const brief = unwrap(view.toolResults[0]).replace(/^Output: /m, "");
    const facts = briefFacts(brief);
    const beat = `peaks sub-agent heartbeat --record ${facts.record} --json`;
    if (view.turn === 1) {
      return tools(host.shell(`${beat} --status running --progress 40 --note ${note}`));
    }
    if (view.turn === 2) {
      return tools(
        host.shell(`${beat} --status done --progress 100 --stage finalizing --note completed`),
      );
    }
    const json = JSON.stringify({
      role: facts.role,
      rid: facts.rid,
      status: "ok",
      artefacts: [],
      warnings: [],
      blockedReason: null,
      reason: null,
      diffSummary: "no code changed",
    });
    // The brief names the host's own way to end, when it has one.
    return brief.includes("complete_task")
      ? tools({ name: "complete_task", input: { result: { response: json } } })
      : text(`Plan written.\n${json}`);
  };
}
