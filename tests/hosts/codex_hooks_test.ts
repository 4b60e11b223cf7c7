/**
 * Codex with peaks' lifecycle hooks in the user's hooks.json (`peaks hooks install --host codex
 * --scope user`), run with `--dangerously-bypass-hook-trust` (the per-run form of the trust Codex
 * asks for): a sub-agent started by the envelope's spawn_agent call that tries to commit is
 * refused, ends without a heartbeat or a return JSON, and its record is closed by the SubagentStop
 * hook as failed with ended-without-report, under the host's own id of the sub-agent.
 */
import { assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { envelopeIn } from "./support/claude_flow.ts";
import { CODEX } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, readJson, world } from "./support/scenario.ts";
import { sideAnswer, text, tools, type Turn, type View } from "./support/standin.ts";
import { recordPathOf } from "../support/subagent.ts";

const ASK = "Plan the login feature with peaks. [codex orchestrator]";

function outputOf(result: string): string {
  const at = result.indexOf("Output:");
  return at >= 0 ? result.slice(at + "Output:".length) : result;
}

Deno.test(
  "codex hooks: a sub-agent that ends without reporting is closed by the hook, its commit refused",
  { sanitizeOps: false, sanitizeResources: false },
  async () => {
    // deno-lint-ignore no-explicit-any
    let envelope: any;
    let agentId = "";
    const orchestrator = (view: View): Turn => {
      switch (view.turn) {
        case 0:
          return tools(CODEX.shell("peaks workspace init --json"));
        case 1:
          return tools(
            CODEX.shell('peaks sub-agent dispatch rd --prompt "Write the plan." --json'),
          );
        case 2: {
          envelope = envelopeIn(outputOf(view.toolResults.at(-1) ?? ""));
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
        default:
          return text("The sub-agent has ended.");
      }
    };
    const subAgent = (view: View): Turn =>
      view.turn === 0
        ? tools(CODEX.shell("git commit --allow-empty -m sneaky"))
        : text("I stopped early.");
    await using w = await world(CODEX, (view: View) => {
      if (view.tools.length === 0) return sideAnswer(view);
      return view.userText.includes(ASK) ? orchestrator(view) : subAgent(view);
    });
    const install = await w.sandbox.peaks(
      ["hooks", "install", "--host", "codex", "--scope", "user", "--json"],
      { CODEX_HOME: join(w.sandbox.home, ".codex") },
    );
    assertEquals(install.code, 0, install.stdout + install.stderr);

    const run = await w.sandbox.run("codex", {
      args: ["exec", "--json", "--dangerously-bypass-hook-trust", "-s", "workspace-write", "-"],
      stdin: ASK,
      env: w.hostEnv,
      timeoutMs: HOST_TIMEOUT_MS,
    });
    assertEquals(run.code, 0, run.stdout + run.stderr);

    const record = await readJson(
      join(w.sandbox.project, recordPathOf(w.sandbox.project, envelope.data.record)),
    );
    assertEquals([record.status, record.error], ["failed", "ended-without-report"]);
    assertEquals([record.hostAgent.host, record.hostAgent.id], ["codex", agentId]);
    const calls = w.standIn.calls().filter((c) => c.view!.tools.length > 0);
    const sub = calls.filter((c) => !c.view!.userText.includes(ASK));
    assertStringIncludes(sub[1].view!.toolResults[0], "a sub-agent does not commit or push");
  },
);
