/**
 * Qwen Code and Copilot CLI with peaks' lifecycle hooks (`peaks hooks install --host qwen-code`,
 * `--host copilot`), and OpenCode with peaks' plugin (`opencode plugin extensions/opencode`): the
 * scripted orchestrator dispatches through peaks and starts the sub-agent with the host's own tool
 * (Qwen's `agent`, Copilot's and OpenCode's `task`) and the envelope's arguments; the
 * sub-agent's `git commit` is refused by the PreToolUse hook and it ends without a heartbeat or a
 * return JSON; the record is closed by the hook as failed with ended-without-report.
 */
import { assertEquals, assertStringIncludes } from "@std/assert";
import { fromFileUrl, join } from "../../lib/infra/std.ts";
import { envelopeIn } from "./support/claude_flow.ts";
import { COPILOT, type HostAdapter, OPENCODE, QWEN } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, readJson, world } from "./support/scenario.ts";
import { sideAnswer, text, tools, type Turn, type View } from "./support/standin.ts";
import { recordPathOf } from "../support/subagent.ts";

const ASK = "Plan the login feature with peaks. [hooked orchestrator]";

interface Case {
  adapter: HostAdapter;
  host: string;
  tool: string;
  argv: string[];
  env?: Record<string, string>;
  /** The host CLI's own install of peaks' package, instead of `peaks hooks install`. */
  plugin?: string[];
  /** The prompt is the last argument, not stdin. */
  promptArg?: boolean;
}

const OPENCODE_PLUGIN = fromFileUrl(new URL("../../extensions/opencode", import.meta.url));

const CASES: Case[] = [
  {
    adapter: QWEN,
    host: "qwen-code",
    tool: "agent",
    argv: ["--auth-type", "openai", "--output-format", "json", "--approval-mode", "yolo"],
  },
  {
    adapter: COPILOT,
    host: "copilot",
    tool: "task",
    argv: ["--output-format", "json", "--allow-all-tools"],
  },
  {
    adapter: OPENCODE,
    host: "opencode",
    tool: "task",
    argv: ["run", "--format", "json"],
    plugin: ["plugin", OPENCODE_PLUGIN],
    promptArg: true,
  },
];

for (const c of CASES) {
  Deno.test(
    `${c.host} hooks: a sub-agent that ends without reporting is closed by the hook, its commit refused`,
    { sanitizeOps: false, sanitizeResources: false },
    async () => {
      // deno-lint-ignore no-explicit-any
      let envelope: any;
      const orchestrator = (view: View): Turn => {
        switch (view.turn) {
          case 0:
            return tools(c.adapter.shell("peaks workspace init --json"));
          case 1:
            return tools(c.adapter.shell('peaks sub-agent dispatch rd --prompt "Plan." --json'));
          case 2: {
            const result = view.toolResults.at(-1) ?? "";
            envelope = envelopeIn(result.slice(result.indexOf("{")));
            // The envelope's tool call is the host's own: used unchanged.
            assertEquals(envelope.data.toolCall.name, c.tool);
            const input = envelope.data.toolCall.args;
            return tools({ name: c.tool, input });
          }
          default:
            return text("The sub-agent has ended.");
        }
      };
      const subAgent = (view: View): Turn =>
        view.turn === 0
          ? tools(c.adapter.shell("git commit --allow-empty -m sneaky"))
          : text("I stopped early.");
      await using w = await world(c.adapter, (view: View) => {
        if (view.tools.length === 0) return sideAnswer(view);
        return view.userText.includes(ASK) ? orchestrator(view) : subAgent(view);
      });
      const install = c.plugin
        ? await w.sandbox.run(c.adapter.id, {
          args: c.plugin,
          env: w.hostEnv,
          timeoutMs: HOST_TIMEOUT_MS,
        })
        : await w.sandbox.peaks(
          ["hooks", "install", "--host", c.host, "--scope", "user", "--json"],
        );
      assertEquals(install.code, 0, install.stdout + install.stderr);

      const run = await w.sandbox.run(c.adapter.id, {
        args: c.promptArg ? [...c.argv, ASK] : c.argv,
        stdin: c.promptArg ? undefined : ASK,
        env: w.hostEnv,
        timeoutMs: HOST_TIMEOUT_MS,
      });
      assertEquals(run.code, 0, run.stdout + run.stderr);

      const record = await readJson(
        join(w.sandbox.project, recordPathOf(w.sandbox.project, envelope.data.record)),
      );
      const log = await Deno.readTextFile(join(w.sandbox.project, ".peaks/_runtime/hooks.log"))
        .catch(() => "");
      assertEquals(
        [record.status, record.error],
        ["failed", "ended-without-report"],
        `${JSON.stringify(record.hostAgent)} ${log} ${run.stdout.slice(-3000)}`,
      );
      assertEquals(record.hostAgent.host, c.host);
      const calls = w.standIn.calls().filter((call) => call.view!.tools.length > 0);
      const sub = calls.filter((call) => !call.view!.userText.includes(ASK));
      assertStringIncludes(
        JSON.stringify(sub[1].view!.toolResults),
        "a sub-agent does not commit or push",
      );
    },
  );
}
