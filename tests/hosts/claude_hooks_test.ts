/**
 * Claude Code with peaks' lifecycle hooks (`peaks hooks install`): the host, not the model, keeps
 * the sub-agent's record. A sub-agent that ends without a heartbeat or a finalize leaves a record
 * the hook closed as failed with ended-without-report; its `git commit` is refused by the
 * PreToolUse hook; the next session starts with peaks' resume line in its context. A sub-agent that
 * reports keeps its own `done`: the hook never finalizes twice.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { CLAUDE } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, readJson, type World, world } from "./support/scenario.ts";
import { envelopeIn, returnedResults, subAgentTurn } from "./support/claude_flow.ts";
import { sideAnswer, text, tools, type Turn, type View } from "./support/standin.ts";
import { recordPathOf } from "../support/subagent.ts";

const ASK = "Plan the login feature with peaks. [orchestrator]";
const OPTIONS = { sanitizeOps: false, sanitizeResources: false };

// deno-lint-ignore no-explicit-any
type Envelope = any;

/** Workspace, dispatch, the envelope's Agent call; then `after` decides the orchestrator's turns. */
function orchestrator(state: { envelope?: Envelope }, after: (view: View) => Turn) {
  return (view: View): Turn => {
    switch (view.turn) {
      case 0:
        return tools(CLAUDE.shell("peaks workspace init --json"));
      case 1:
        return tools(
          CLAUDE.shell('peaks sub-agent dispatch rd --prompt "Write the login plan." --json'),
        );
      case 2:
        state.envelope = envelopeIn(view.toolResults.at(-1) ?? "");
        return tools({
          name: state.envelope.data.toolCall.name,
          input: state.envelope.data.toolCall.args,
        });
    }
    return after(view);
  };
}

async function prepare(w: World) {
  for (const args of [["permissions", "install", "--json"], ["hooks", "install", "--json"]]) {
    const result = await w.sandbox.peaks(args);
    assertEquals(result.code, 0, result.stdout + result.stderr);
  }
}

function claude(w: World, ask: string) {
  return w.sandbox.run("claude", {
    args: ["-p", "--output-format", "json", "--permission-mode", "acceptEdits"],
    stdin: ask,
    env: w.hostEnv,
    timeoutMs: HOST_TIMEOUT_MS,
  });
}

Deno.test(
  "claude hooks: a sub-agent that ends without reporting is closed by the hook, its commit refused",
  OPTIONS,
  async () => {
    const state: { envelope?: Envelope } = {};
    const RESUME = "Where are we? [resume]";
    const orchestrate = orchestrator(state, () => text("The sub-agent has ended."));
    await using w = await world(CLAUDE, (view: View) => {
      if (view.tools.length === 0) return sideAnswer(view);
      if (view.userText.includes(RESUME)) return text("We are where the line says.");
      if (view.userText.includes(ASK)) return orchestrate(view);
      // The sub-agent: tries to commit, then ends without a heartbeat, finalize or return JSON.
      return view.turn === 0
        ? tools(CLAUDE.shell("git commit --allow-empty -m sneaky"))
        : text("I stopped early.");
    });
    await prepare(w);
    const run = await claude(w, ASK);
    assertEquals(run.code, 0, run.stdout + run.stderr);

    const path = join(
      w.sandbox.project,
      recordPathOf(w.sandbox.project, state.envelope.data.record),
    );
    const record = await readJson(path);
    assertEquals([record.status, record.error], ["failed", "ended-without-report"]);
    assertEquals(record.hostAgent.host, "claude-code");
    assert(record.hostAgent.id && record.hostAgent.endedAt, JSON.stringify(record.hostAgent));

    const calls = w.standIn.calls().filter((c) => c.view!.tools.length > 0);
    const sub = calls.filter((c) => !c.view!.userText.includes(ASK));
    assertStringIncludes(sub[1].view!.toolResults[0], "a sub-agent does not commit or push");

    const again = await claude(w, RESUME);
    assertEquals(again.code, 0, again.stdout + again.stderr);
    const resumed = w.standIn.calls().find((c) =>
      c.view!.tools.length > 0 && c.view!.userText.includes(RESUME)
    );
    const seen = `${resumed!.view!.system}\n${resumed!.view!.userText}`;
    assertStringIncludes(seen, `peaks: request ${record.requestId}`);
    assertStringIncludes(seen, "sub-agents: 0 live, 0 stale");
  },
);

Deno.test(
  "claude hooks: a sub-agent that reports keeps its own done, finalized once",
  OPTIONS,
  async () => {
    const state: { envelope?: Envelope } = {};
    let project = "";
    let finalized = false;
    const orchestrate = orchestrator(state, (view) => {
      const [result] = returnedResults(view);
      if (result && !finalized) {
        finalized = true;
        return tools(CLAUDE.shell(
          `peaks sub-agent finalize --record ${state.envelope.data.record} --outcome done --result-json '${result}' --json`,
        ));
      }
      return text(finalized ? "The plan is done." : "Waiting for the sub-agent.");
    });
    await using w = await world(CLAUDE, (view: View) => {
      if (view.tools.length === 0) return sideAnswer(view);
      if (view.userText.includes(ASK)) return orchestrate(view);
      return subAgentTurn(view, project, "sub-beat");
    });
    project = w.sandbox.project;
    await prepare(w);
    const run = await claude(w, ASK);
    assertEquals(run.code, 0, run.stdout + run.stderr);

    const path = join(project, recordPathOf(project, state.envelope.data.record));
    const record = await readJson(path);
    const done = record.heartbeats.find((b: { status: string }) => b.status === "done");
    assertEquals([record.status, record.error, record.completedAt], ["done", null, done.at]);
    assertEquals(record.hostAgent.host, "claude-code");
    assert(finalized, "the orchestrator never saw the sub-agent's result");
  },
);
