/**
 * After `peaks skills install --agent <host> --scope project`, each host
 * lists peaks' skills (name and description) in what it sends its model,
 * and offers its skill tool where it has one. Copilot and Qwen Code are no
 * install targets of their own: both read the shared .agents/skills folder.
 */
import { assert, assertEquals } from "@std/assert";
import { ADAPTERS } from "./support/hosts.ts";
import type { HostId } from "./support/install.ts";
import { HOST_TIMEOUT_MS, world } from "./support/scenario.ts";
import { sideAnswer, text, type View } from "./support/standin.ts";

const DESCRIPTION = "Orchestrates a code change end to end with the peaks CLI";

interface Case {
  host: HostId;
  agent: string;
  folder: string;
  argv: string[];
  stdin: boolean;
  /** The host's skill tool, when it offers one in this mode. */
  tool: string | null;
}

const CASES: Case[] = [
  {
    host: "claude",
    agent: "claude-code",
    folder: ".claude/skills",
    argv: ["-p", "--output-format", "json"],
    stdin: true,
    tool: "Skill",
  },
  {
    host: "codex",
    agent: "codex",
    folder: ".agents/skills",
    argv: ["exec", "--json", "-s", "read-only", "-"],
    stdin: true,
    tool: null,
  },
  // Headless Gemini CLI in its default approval mode lists skills but withholds activate_skill.
  {
    host: "gemini",
    agent: "gemini",
    folder: ".agents/skills",
    argv: ["--skip-trust", "--output-format", "json"],
    stdin: true,
    tool: null,
  },
  {
    host: "opencode",
    agent: "opencode",
    folder: ".agents/skills",
    argv: ["run", "--format", "json", "Say hello."],
    stdin: false,
    tool: "skill",
  },
  {
    host: "qwen",
    agent: "qwen",
    folder: ".agents/skills",
    argv: ["--auth-type", "openai", "--output-format", "json"],
    stdin: true,
    tool: "skill",
  },
  {
    host: "copilot",
    agent: "copilot",
    folder: ".agents/skills",
    argv: ["--output-format", "json"],
    stdin: true,
    tool: "skill",
  },
];

for (const c of CASES) {
  Deno.test(`${c.host}: lists peaks' skills installed in ${c.folder}`, {
    sanitizeOps: false,
    sanitizeResources: false,
  }, async () => {
    await using w = await world(
      ADAPTERS[c.host]!,
      (view: View) => view.tools.length ? text("Hello.") : sideAnswer(view),
    );
    const install = await w.sandbox.peaks([
      "skills",
      "install",
      "--agent",
      c.agent,
      "--scope",
      "project",
      "--json",
    ]);
    assertEquals(install.code, 0, install.stdout);
    assert(install.json.data.skills.includes("peaks-code"));
    assert(
      await Deno.lstat(`${w.sandbox.project}/${c.folder}/peaks-code/SKILL.md`).then(
        () => true,
        () => false,
      ),
    );

    const run = await w.sandbox.run(c.host, {
      args: c.argv,
      stdin: c.stdin ? "Say hello." : undefined,
      env: w.hostEnv,
      timeoutMs: HOST_TIMEOUT_MS,
    });
    assertEquals(run.code, 0, run.stdout + run.stderr);
    const [first] = w.standIn.calls().filter((call) => call.view!.tools.length > 0);
    assert(first, "the host sent no agent request");
    const sent = JSON.stringify(first.body);
    for (const skill of ["peaks-code", "peaks-rd", "peaks-qa"]) {
      assert(sent.includes(skill), `${skill} not listed`);
    }
    assert(sent.includes(DESCRIPTION), "peaks-code's description is not in the request");
    if (c.tool) {
      assert(first.view!.tools.includes(c.tool), `no ${c.tool} tool: ${first.view!.tools}`);
    }
  });
}
