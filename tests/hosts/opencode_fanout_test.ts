/**
 * A `--from-dag` level of three through the real OpenCode: the orchestrator
 * issues the envelope's three task calls unchanged in one message, OpenCode
 * runs the sub-agents and hands each result back inline; the
 * orchestrator finalizes each and every record ends done.
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { OPENCODE } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, readJson, world } from "./support/scenario.ts";
import { envelopeOf, pointerSubAgent, returnedJson } from "./support/orchestrator_flow.ts";
import { type Call, sideAnswer, text, tools, type Turn, type View } from "./support/standin.ts";
import { recordPathOf } from "../support/subagent.ts";

const ASK = "Run the planning swarm with peaks. [opencode fan-out]";
const ROLES = ["rd-planning", "qa-test-cases", "ui"];
const DAG = {
  nodes: ROLES.map((role, i) => ({ id: `n${i}`, role, prompt: `Plan the login as ${role}.` })),
  edges: [],
};

Deno.test(
  "opencode fan-out: three task calls from --from-dag in one message, each result inline, every record done",
  { sanitizeOps: false, sanitizeResources: false },
  async () => {
    // deno-lint-ignore no-explicit-any
    let envelope: any;
    const finalized: string[] = [];
    const orchestrator = (view: View): Turn => {
      if (view.turn === 0) {
        return tools(
          OPENCODE.shell("peaks sub-agent dispatch --from-dag dag.json --brief pointer --json"),
        );
      }
      if (view.turn === 1) {
        envelope = envelopeOf(view.toolResults.at(-1)!);
        return tools(
          ...envelope.data.toolCalls.map((c: { name: string; args: Record<string, unknown> }) => ({
            name: c.name,
            input: c.args,
          })) as Call[],
        );
      }
      if (view.turn === 2) {
        return tools(
          ...view.toolResults.slice(-ROLES.length).map((result) => {
            const json = returnedJson(result);
            const role = JSON.parse(json).role;
            finalized.push(role);
            return OPENCODE.shell(
              `peaks sub-agent finalize --record ${
                envelope.data.records[ROLES.indexOf(role)]
              } --outcome done --result-json '${json}' --json`,
            );
          }),
        );
      }
      return text("The swarm is done.");
    };
    const subAgent = pointerSubAgent(OPENCODE, "opencode-swarm-beat");
    await using w = await world(OPENCODE, (view: View) => {
      if (view.tools.length === 0) return sideAnswer(view);
      return view.userText.includes(ASK) ? orchestrator(view) : subAgent(view);
    }, { files: { "dag.json": JSON.stringify(DAG) } });
    const init = await w.sandbox.peaks(["workspace", "init", "--json"]);
    assertEquals(init.code, 0, init.stdout + init.stderr);

    const run = await w.sandbox.run("opencode", {
      args: ["run", "--format", "json", ASK],
      env: w.hostEnv,
      timeoutMs: HOST_TIMEOUT_MS,
    });
    assertEquals(run.code, 0, run.stdout + run.stderr);

    assertEquals(envelope.data.toolCalls.map((c: { name: string }) => c.name), [
      "task",
      "task",
      "task",
    ]);
    assertEquals(
      envelope.data.toolCalls.map((c: { args: { subagent_type: string } }) => c.args.subagent_type),
      ["general", "general", "general"],
    );
    assertEquals(finalized.sort(), [...ROLES].sort());
    for (const [i, id] of envelope.data.records.entries()) {
      const record = await readJson(join(w.sandbox.project, recordPathOf(w.sandbox.project, id)));
      assertEquals([record.role, record.status, record.ide], [ROLES[i], "done", "opencode"]);
      assert(record.heartbeats.some((b: { note: string }) => b.note === "opencode-swarm-beat"));
      assertEquals(record.result?.status, "ok");
    }
  },
);
