/**
 * Codex as the orchestrator (`codex exec`, workspace-write sandbox): the
 * scripted model runs peaks through its shell tool, gets the spawn_agent
 * call from the dispatch envelope and issues it unchanged in the
 * multi_agent_v1 namespace; the real host starts the sub-agent with peaks'
 * pointer brief, which heartbeats through its own shell and returns its
 * JSON; wait_agent hands it back and the orchestrator finalizes.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { briefFacts, envelopeIn } from "./support/claude_flow.ts";
import { CODEX } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, readJson, world } from "./support/scenario.ts";
import { sideAnswer, text, tools, type Turn, type View } from "./support/standin.ts";
import { recordPathOf } from "../support/subagent.ts";

const ASK = "Plan the login feature with peaks. [codex orchestrator]";

/** codex's shell tool answers with a header, then the command's output. */
function outputOf(result: string): string {
  const at = result.indexOf("Output:");
  return at >= 0 ? result.slice(at + "Output:".length) : result;
}

Deno.test(
  "codex orchestrator: dispatch answers spawn_agent, used unchanged; the sub-agent beats; wait_agent; finalize",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    // deno-lint-ignore no-explicit-any
    let envelope: any;
    let agentId = "";
    const orchestrator = (view: View): Turn => {
      const last = outputOf(view.toolResults.at(-1) ?? "");
      switch (view.turn) {
        case 0:
          return tools(CODEX.shell("peaks session start --skill peaks-code --json"));
        case 1:
          return tools(
            CODEX.shell(
              'peaks sub-agent dispatch rd --prompt "Write the login plan." --brief pointer --json',
            ),
          );
        case 2: {
          envelope = envelopeIn(last);
          const call = envelope.data.toolCall;
          return tools({ name: call.name, namespace: call.namespace, input: call.args });
        }
        case 3:
          agentId = JSON.parse(view.toolResults.at(-1)!).agent_id;
          return tools({
            name: "wait_agent",
            namespace: "multi_agent_v1",
            input: { targets: [agentId], timeout_ms: 120_000 },
          });
        case 4: {
          const waited = JSON.parse(view.toolResults.at(-1)!);
          const result = waited.status[agentId].completed as string;
          const json = result.slice(result.indexOf("{"));
          return tools(
            CODEX.shell(
              `peaks sub-agent finalize --record ${envelope.data.record} --outcome done --result-json '${json}' --json`,
            ),
          );
        }
        default:
          return text("The plan is done.");
      }
    };
    const subAgent = (view: View): Turn => {
      const pointer = view.userText.match(
        /Run `(peaks sub-agent brief --record \S+)` and follow it/,
      );
      if (view.turn === 0) return tools(CODEX.shell(pointer![1]));
      const facts = briefFacts(outputOf(view.toolResults[0]));
      const beat = `peaks sub-agent heartbeat --record ${facts.record} --json`;
      if (view.turn === 1) {
        return tools(CODEX.shell(`${beat} --status running --progress 40 --note codex-sub-beat`));
      }
      if (view.turn === 2) {
        return tools(
          CODEX.shell(`${beat} --status done --progress 100 --stage finalizing --note completed`),
        );
      }
      return text(JSON.stringify({
        role: facts.role,
        rid: facts.rid,
        status: "ok",
        artefacts: [],
        warnings: [],
        blockedReason: null,
        reason: null,
        diffSummary: "no code changed",
      }));
    };
    await using w = await world(CODEX, (view: View) => {
      if (view.tools.length === 0) return sideAnswer(view);
      return view.userText.includes(ASK) ? orchestrator(view) : subAgent(view);
    });

    const run = await w.sandbox.run("codex", {
      args: ["exec", "--json", "-s", "workspace-write", "-"],
      stdin: ASK,
      env: w.hostEnv,
      timeoutMs: HOST_TIMEOUT_MS,
    });
    assertEquals(run.code, 0, run.stdout + run.stderr);

    // Detected as codex from the variables codex gives its shell (record.ide below); the descriptor is spawn_agent.
    assertEquals(envelope.data.toolCall.name, "spawn_agent");
    assertEquals(envelope.data.toolCall.namespace, "multi_agent_v1");
    const calls = w.standIn.calls().filter((c) => c.view!.tools.length > 0);
    assert(calls[0].view!.tools.includes("multi_agent_v1.spawn_agent"));
    const sub = calls.filter((c) => !c.view!.userText.includes(ASK));
    assertStringIncludes(sub[0].view!.userText, envelope.data.toolCall.args.message);

    const record = await readJson(
      join(w.sandbox.project, recordPathOf(w.sandbox.project, envelope.data.record)),
    );
    assertEquals([record.status, record.ide], ["done", "codex"]);
    assert(record.heartbeats.some((b: { note: string }) => b.note === "codex-sub-beat"));
    assertEquals(record.result?.rid, record.requestId);
    const finalize = envelopeIn(
      outputOf(
        calls.filter((c) => c.view!.userText.includes(ASK)).at(-1)!.view!.toolResults.at(-1)!,
      ),
    );
    assertEquals([finalize.ok, finalize.warnings], [true, []]);
  },
);
