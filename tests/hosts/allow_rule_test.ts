/**
 * Claude Code in -p mode with its default permission mode refuses every
 * peaks call, read-only ones included, until they are allowed;
 * `peaks permissions install` writes the rule that lets them through. The
 * shared .claude/settings.json is not enough in a folder nobody trusted
 * interactively: its permission rules wait for that trust, which is why the
 * command's default scope is .claude/settings.local.json.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { CLAUDE } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, world } from "./support/scenario.ts";
import { sequence, text, tools } from "./support/standin.ts";

Deno.test(
  "claude -p, default permission mode: peaks is refused until `peaks permissions install`, then allowed",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    const script = sequence([tools(CLAUDE.shell("peaks workspace init --json")), text("Done.")]);
    await using w = await world(CLAUDE, script);
    const claude = () =>
      w.sandbox.run("claude", {
        args: ["-p", "--output-format", "json"],
        stdin: "Start peaks in this project.",
        env: w.hostEnv,
        timeoutMs: HOST_TIMEOUT_MS,
      });

    const before = await claude();
    assertEquals(before.code, 0, before.stderr);
    const refused = JSON.parse(before.stdout);
    assertEquals(
      refused.permission_denials.map((d: { tool_input: { command: string } }) =>
        d.tool_input.command
      ),
      ["peaks workspace init --json"],
    );
    assert(!(await Deno.lstat(join(w.sandbox.project, ".peaks")).then(() => true, () => false)));

    const install = await w.sandbox.peaks(["permissions", "install", "--json"]);
    assertEquals([install.code, install.json.data.action], [0, "installed"]);

    const calls = w.standIn.calls().length;
    const after = await claude();
    assertEquals(after.code, 0, after.stderr);
    assertEquals(JSON.parse(after.stdout).permission_denials, []);
    const [, answer] = w.standIn.calls().slice(calls).filter((c) => c.view!.tools.length);
    assertMatch(answer.view!.toolResults.join("\n"), /"command":"workspace\.init"/);
    assert(await Deno.lstat(join(w.sandbox.project, ".peaks")).then(() => true, () => false));
  },
);
