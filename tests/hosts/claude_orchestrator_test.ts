/**
 * Claude Code as the orchestrator, in -p mode, with peaks' skills installed
 * and peaks allowed (`peaks permissions install`): the scripted model loads
 * the peaks-code skill, runs the startup command and the dispatch through
 * the host's Bash tool, and issues the envelope's tool call unchanged as
 * the host's own sub-agent tool. The real host starts the sub-agent, whose
 * first request carries peaks' pointer brief; the scripted sub-agent reads
 * its brief, heartbeats, writes and registers an artefact through the
 * host's tools and returns its result JSON; the orchestrator finalizes.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { CLAUDE } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, readJson, world } from "./support/scenario.ts";
import { envelopeIn, returnedResults, subAgentTurn } from "./support/claude_flow.ts";
import { type Exchange, sideAnswer, text, tools, type Turn, type View } from "./support/standin.ts";
import { recordPathOf } from "../support/subagent.ts";

const ASK = "Plan the login feature with peaks. [orchestrator]";

Deno.test(
  "claude-code orchestrator in -p mode: skill, startup, dispatch, the envelope's Agent call unchanged, finalize",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    let project = "";
    // deno-lint-ignore no-explicit-any
    let envelope: any;
    let finalized = false;
    const orchestrator = (view: View): Turn => {
      const last = view.toolResults.at(-1) ?? "";
      switch (view.turn) {
        case 0:
          return tools({ name: "Skill", input: { skill: "peaks-code" } });
        case 1:
          return tools(CLAUDE.shell("peaks session start --skill peaks-code --json"));
        case 2:
          return tools(
            CLAUDE.shell(
              'peaks sub-agent dispatch rd --prompt "Write the login plan." --brief pointer --json',
            ),
          );
        case 3:
          envelope = envelopeIn(last);
          // The envelope's tool call, unchanged, as the host's own sub-agent tool.
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
      return text(
        finalized
          ? "The plan is done."
          : "The rd sub-agent is working; I will finalize when it reports.",
      );
    };
    await using w = await world(CLAUDE, (view: View, _ex: Exchange) => {
      if (view.tools.length === 0) return sideAnswer(view);
      if (view.userText.includes(ASK)) return orchestrator(view);
      return subAgentTurn(view, project, "sub-beat");
    });
    project = w.sandbox.project;
    for (
      const args of [[
        "skills",
        "install",
        "--agent",
        "claude-code",
        "--scope",
        "project",
        "--json",
      ], ["permissions", "install", "--json"]]
    ) {
      const result = await w.sandbox.peaks(args);
      assertEquals(result.code, 0, result.stdout + result.stderr);
    }

    const run = await w.sandbox.run("claude", {
      // Edits allowed for the sub-agent's artefact; peaks itself through the allow rule.
      args: ["-p", "--output-format", "json", "--permission-mode", "acceptEdits"],
      stdin: ASK,
      env: w.hostEnv,
      timeoutMs: HOST_TIMEOUT_MS,
    });
    assertEquals(run.code, 0, run.stdout + run.stderr);
    const outcome = JSON.parse(run.stdout);
    assertEquals(outcome.permission_denials, []);

    const calls = w.standIn.calls().filter((c) => c.view!.tools.length > 0);
    const orchestration = calls.filter((c) => c.view!.userText.includes(ASK));
    const sub = calls.filter((c) => !c.view!.userText.includes(ASK));
    // The skill was loaded by the host's Skill tool, from the installed folder.
    assertStringIncludes(
      orchestration[0].view!.system + orchestration[0].view!.userText,
      "peaks-code",
    );
    assertStringIncludes(orchestration[1].view!.userText, "peaks sub-agent dispatch");
    assert(orchestration[0].view!.tools.includes("Agent"), "the host offers no Agent tool");
    // The dispatch answered for claude-code with the Agent tool and a pointer brief.
    assertEquals(envelope.data.toolCall.name, "Agent");
    // The sub-agent's first request carries the pointer brief, exactly as peaks wrote it.
    assertStringIncludes(
      sub[0].view!.firstUser + sub[0].view!.userText,
      envelope.data.toolCall.args.prompt,
    );
    assertMatch(sub[1].view!.toolResults[0], /## Runtime arguments/);

    const record = await readJson(
      join(w.sandbox.project, recordPathOf(w.sandbox.project, envelope.data.record)),
    );
    assertEquals([record.status, record.outcome, record.ide], ["done", "done", "claude-code"]);
    const notes = record.heartbeats.map((b: { note: string }) => b.note);
    assert(notes.includes("sub-beat") && notes.includes("completed"), notes.join(", "));
    assertEquals(record.artifactMetas.length, 1);
    assertEquals(record.result?.status, "ok");
    assertEquals(record.result?.artefacts, [record.artifactMetas[0].path]);
    // The orchestrator's finalize ran through Bash and its audit was clean.
    const finalize = envelopeIn(orchestration.at(-1)!.view!.toolResults.at(-1)!);
    assertEquals(finalize.ok, true);
    assertEquals(finalize.warnings, []);
    assert(finalized, "the orchestrator never saw the sub-agent's result");
  },
);
