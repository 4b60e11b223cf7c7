/**
 * Per-role model and effort through Claude Code: with `models.rd` and
 * `effort.rd` set, the dispatch envelope's Agent call carries them; the
 * scripted orchestrator issues that call unchanged; the real host accepts
 * it, echoes the same input back to its model, and starts the sub-agent on
 * the model the alias names, which runs its brief and finishes.
 */
import { assert, assertEquals, assertNotEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { CLAUDE } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, readJson, world } from "./support/scenario.ts";
import { envelopeIn, returnedResults, subAgentTurn } from "./support/claude_flow.ts";
import { type Exchange, sideAnswer, text, tools, type Turn, type View } from "./support/standin.ts";
import { recordPathOf } from "../support/subagent.ts";

const ASK = "Plan the login feature with peaks on the small model. [orchestrator]";

/** The inputs of the Agent calls the host sent back to its model, as the model's own turns. */
function agentInputs(exchange: Exchange): Record<string, unknown>[] {
  const inputs: Record<string, unknown>[] = [];
  for (const message of exchange.body?.messages ?? []) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type === "tool_use" && block.name === "Agent") inputs.push(block.input);
    }
  }
  return inputs;
}

Deno.test(
  "claude-code: models.rd and effort.rd reach the Agent call unchanged; the sub-agent runs on that model",
  { sanitizeOps: false, sanitizeResources: false },
  async () => {
    let project = "";
    // deno-lint-ignore no-explicit-any
    let envelope: any;
    let finalized = false;
    const orchestrator = (view: View): Turn => {
      const last = view.toolResults.at(-1) ?? "";
      switch (view.turn) {
        case 0:
          return tools(
            CLAUDE.shell(
              'peaks sub-agent dispatch rd --prompt "Write the login plan." --brief pointer --json',
            ),
          );
        case 1:
          envelope = envelopeIn(last);
          return tools({ name: envelope.data.toolCall.name, input: envelope.data.toolCall.args });
      }
      const [result] = returnedResults(view);
      if (result && !finalized) {
        finalized = true;
        return tools(
          CLAUDE.shell(
            `peaks sub-agent finalize --record ${envelope.data.record} --outcome done --result-json '${result}' --json`,
          ),
        );
      }
      return text(finalized ? "The plan is done." : "The rd sub-agent is working.");
    };
    await using w = await world(CLAUDE, (view: View, _ex: Exchange) => {
      if (view.tools.length === 0) return sideAnswer(view);
      if (view.userText.includes(ASK)) return orchestrator(view);
      return subAgentTurn(view, project, "sub-beat");
    });
    project = w.sandbox.project;
    for (
      const args of [
        ["workspace", "init", "--json"],
        ["permissions", "install", "--json"],
        ["preferences", "set", "--key", "models.rd", "--value", "haiku", "--apply", "--json"],
        ["preferences", "set", "--key", "effort.rd", "--value", "low", "--apply", "--json"],
      ]
    ) {
      const result = await w.sandbox.peaks(args);
      assertEquals(result.code, 0, result.stdout + result.stderr);
    }

    const run = await w.sandbox.run("claude", {
      args: ["-p", "--output-format", "json", "--permission-mode", "acceptEdits"],
      stdin: ASK,
      env: w.hostEnv,
      timeoutMs: HOST_TIMEOUT_MS,
    });
    assertEquals(run.code, 0, run.stdout + run.stderr);
    assertEquals(JSON.parse(run.stdout).permission_denials, []);

    // The envelope carried the preferences in Claude Code's own argument names.
    assertEquals(envelope.data.toolCall.name, "Agent");
    assertEquals(envelope.data.toolCall.args.model, "haiku");
    assertEquals(envelope.data.toolCall.args.effort, "low");
    assertEquals(envelope.warnings, []);

    const calls = w.standIn.calls().filter((c) => c.view!.tools.length > 0);
    const orchestration = calls.filter((c) => c.view!.userText.includes(ASK));
    const sub = calls.filter((c) => !c.view!.userText.includes(ASK));
    // The host took the call as the model made it: the input it echoes is the envelope's, unchanged.
    const echoed = agentInputs(orchestration.at(-1)!);
    assertEquals(echoed, [envelope.data.toolCall.args]);
    // It accepted it: the sub-agent ran, on the model "haiku" names, not the orchestrator's.
    assert(sub.length > 0, "the host started no sub-agent");
    assertStringIncludes(sub[0].view!.firstUser + sub[0].view!.userText, "peaks sub-agent brief");
    assertStringIncludes(sub[0].view!.model, "haiku");
    assertNotEquals(sub[0].view!.model, orchestration[0].view!.model);

    const record = await readJson(
      join(w.sandbox.project, recordPathOf(w.sandbox.project, envelope.data.record)),
    );
    assertEquals([record.status, record.outcome], ["done", "done"]);
    assertEquals(record.toolCall?.args.model, "haiku");
    const finalize = envelopeIn(orchestration.at(-1)!.view!.toolResults.at(-1)!);
    assertEquals([finalize.ok, finalize.warnings], [true, []]);
    assert(finalized, "the orchestrator never saw the sub-agent's result");
  },
);
