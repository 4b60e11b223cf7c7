/**
 * A `--from-dag` fan-out through the real Claude Code: the orchestrator
 * issues every tool call of the envelope in one assistant message, the host
 * runs the sub-agents side by side, `peaks sub-agent status` shows them
 * live while they run (the scripted sub-agents wait until it was read), and
 * every record ends done after the orchestrator finalizes each one.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { envelopeIn, returnedResults, subAgentTurn } from "./support/claude_flow.ts";
import { CLAUDE } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, readJson, world } from "./support/scenario.ts";
import { type Call, sideAnswer, text, tools, type Turn, type View } from "./support/standin.ts";
import { recordPathOf } from "../support/subagent.ts";

const ASK = "Run the planning swarm with peaks. [fan-out]";
const ROLES = ["rd-planning", "qa-test-cases", "ui"];
const DAG = {
  nodes: ROLES.map((role, i) => ({
    id: `n${i}`,
    role,
    prompt: `Plan the login feature as ${role}.`,
  })),
  edges: [],
};

Deno.test(
  "claude-code fan-out: the --from-dag tool calls in one message, status shows them live, every record done",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    let project = "";
    // deno-lint-ignore no-explicit-any
    let envelope: any;
    let liveStatus = "";
    let release!: () => void;
    const statusRead = new Promise<void>((resolve) => release = resolve);
    let beaten = 0;
    let allBeat!: () => void;
    const allBeaten = new Promise<void>((resolve) => allBeat = resolve);
    const bounded = (gate: Promise<void>) =>
      Promise.race([gate, new Promise((resolve) => setTimeout(resolve, 60_000))]);
    const finalized = new Set<string>();
    const orchestrator = async (view: View): Promise<Turn> => {
      const last = view.toolResults.at(-1) ?? "";
      if (view.turn === 0) {
        return tools(
          CLAUDE.shell("peaks sub-agent dispatch --from-dag dag.json --brief pointer --json"),
        );
      }
      if (view.turn === 1) {
        envelope = envelopeIn(last);
        // Every call of the level, unchanged, in one message.
        const calls: Call[] = envelope.data.toolCalls.map((
          c: { name: string; args: Record<string, unknown> },
        ) => ({
          name: c.name,
          input: c.args,
        }));
        return tools(...calls);
      }
      if (view.turn === 2) {
        // Read the status once every sub-agent has sent its first beat.
        await bounded(allBeaten);
        return tools(CLAUDE.shell(`peaks sub-agent status --batch ${envelope.data.batchId}`));
      }
      if (view.turn === 3) {
        liveStatus = last;
        release();
      }
      const pending = returnedResults(view).filter((r) => !finalized.has(JSON.parse(r).role));
      if (pending.length) {
        return tools(...pending.map((result) => {
          const role = JSON.parse(result).role;
          finalized.add(role);
          const record = envelope.data.records[ROLES.indexOf(role)];
          return CLAUDE.shell(
            `peaks sub-agent finalize --record ${record} --outcome done --result-json '${result}' --json`,
          );
        }));
      }
      return text(
        finalized.size === ROLES.length ? "The swarm is done." : "Waiting for the swarm.",
      );
    };
    await using w = await world(CLAUDE, async (view: View) => {
      if (view.tools.length === 0) return sideAnswer(view);
      if (view.userText.includes(ASK)) return orchestrator(view);
      // Sub-agents hold after their first heartbeat until the orchestrator has read the status.
      // Sub-agents hold after their first heartbeat until the orchestrator has read the status.
      if (view.turn === 2) {
        if (++beaten === ROLES.length) allBeat();
        await bounded(statusRead);
      }
      return subAgentTurn(view, project, "swarm-beat");
    }, { files: { "dag.json": JSON.stringify(DAG) } });
    project = w.sandbox.project;
    for (const args of [["workspace", "init", "--json"], ["permissions", "install", "--json"]]) {
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

    assertEquals(envelope.data.toolCalls.length, ROLES.length);
    // The fan-out went out as one assistant message with one Agent call per node.
    const orchestration = w.standIn.calls().filter((c) => c.view!.userText.includes(ASK));
    const fanout = orchestration[2].body.messages.at(-2);
    const uses = fanout.content.filter((b: { type: string }) => b.type === "tool_use");
    assertEquals(uses.map((u: { name: string }) => u.name), ROLES.map(() => "Agent"));
    // Live while they ran: the status line counted them running, with their beats.
    assertMatch(liveStatus, new RegExp(`swarm ${ROLES.length}/${ROLES.length} running`));
    for (const role of ROLES) assertMatch(liveStatus, new RegExp(`${role} 40%`));

    for (const [i, id] of envelope.data.records.entries()) {
      const record = await readJson(join(w.sandbox.project, recordPathOf(w.sandbox.project, id)));
      assertEquals([record.role, record.status], [ROLES[i], "done"]);
      assert(record.heartbeats.some((b: { note: string }) => b.note === "swarm-beat"));
      assertEquals(record.result?.status, "ok");
    }
    assertEquals(finalized.size, ROLES.length);
    const status = await w.sandbox.peaks(["sub-agent", "status", "--batch", envelope.data.batchId]);
    assertMatch(status.stdout, new RegExp(`swarm ${ROLES.length}/${ROLES.length} done`));
  },
);
