import { assert, assertEquals } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import { join } from "../../../lib/infra/std.ts";

const THEIRS = `{
  // the user's own hook stays
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./audit.sh" }] }
    ]
  }
}
`;

async function hooks(cwd: string, args: string[], env: Record<string, string> = {}) {
  const result = await runPeaks(["hooks", ...args, "--json"], {
    cwd,
    env,
    home: join(cwd, "home"),
  });
  return result;
}

Deno.test("hooks install (Claude Code, local): adds ours beside the user's hook, idempotent; uninstall removes only ours", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, ".claude", "settings.local.json");
  await writeText(path, THEIRS);

  const first = await hooks(dir.path, ["install"]);
  assertEquals([first.code, first.json.data.action], [0, "installed"], first.stderr);
  const settings = JSON.parse(
    (await Deno.readTextFile(path)).replace("// the user's own hook stays", ""),
  );
  assertEquals(settings.model, "opus");
  assertEquals(settings.hooks.PreToolUse[0].hooks[0].command, "./audit.sh");
  assertEquals(settings.hooks.PreToolUse[1], {
    matcher: "Agent|Task|Bash",
    hooks: [{
      type: "command",
      command: "peaks hooks run --host claude-code --event PreToolUse",
      timeout: 10,
    }],
  });
  assert(settings.hooks.SubagentStop && settings.hooks.SessionStart && settings.hooks.StopFailure);
  assert((await Deno.readTextFile(path)).includes("// the user's own hook stays"));

  const again = await hooks(dir.path, ["install"]);
  assertEquals([again.json.data.action, again.json.data.changed], ["unchanged", false]);
  const status = await hooks(dir.path, ["status"]);
  assertEquals(status.json.data.action, "installed");

  const removed = await hooks(dir.path, ["uninstall"]);
  assertEquals(removed.json.data.action, "uninstalled");
  const left = JSON.parse((await Deno.readTextFile(path)).replace(/\/\/.*\n/, ""));
  assertEquals(left.hooks, {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./audit.sh" }] }],
  });
  assertEquals((await hooks(dir.path, ["status"])).json.data.action, "absent");
  assertEquals((await hooks(dir.path, ["uninstall"])).json.data.action, "unchanged");
});

Deno.test("hooks install: each host's file and units (Gemini ms, Copilot's own file, Codex home)", async () => {
  await using dir = await tempDir();
  const gemini = await hooks(dir.path, ["install", "--host", "gemini"]);
  assertEquals(gemini.code, 0, gemini.stderr);
  const g = JSON.parse(await Deno.readTextFile(join(dir.path, ".gemini", "settings.json")));
  assertEquals(g.hooks.BeforeTool[0].matcher, "invoke_agent");
  assertEquals(g.hooks.BeforeTool[0].hooks[0].timeout, 10_000);

  const qwen = await hooks(dir.path, ["install", "--host", "qwen-code", "--scope", "user"]);
  assertEquals(qwen.code, 0, qwen.stderr);
  const q = JSON.parse(await Deno.readTextFile(join(dir.path, "home", ".qwen", "settings.json")));
  assertEquals(q.hooks.PreToolUse[0].matcher, "agent|run_shell_command");

  const copilot = await hooks(dir.path, ["install", "--host", "copilot", "--scope", "user"]);
  assertEquals(copilot.code, 0, copilot.stderr);
  const c = JSON.parse(
    await Deno.readTextFile(join(dir.path, "home", ".copilot", "hooks", "peaks.json")),
  );
  assertEquals(c.version, 1);
  assertEquals(c.hooks.preToolUse, [{
    type: "command",
    bash: "peaks hooks run --host copilot --event preToolUse",
    timeoutSec: 10,
  }]);

  const codexHome = join(dir.path, "codex-home");
  const codex = await hooks(dir.path, ["install", "--host", "codex", "--scope", "user"], {
    CODEX_HOME: codexHome,
  });
  assertEquals(codex.code, 0, codex.stderr);
  assert(codex.json.data.note.includes("trust"));
  const x = JSON.parse(await Deno.readTextFile(join(codexHome, "hooks.json")));
  assertEquals(x.hooks.PostToolUse[0].matcher, "spawn_agent");

  const local = await hooks(dir.path, ["install", "--host", "qwen-code", "--scope", "local"]);
  assertEquals([local.code, local.json.code], [1, "SCOPE_NOT_SUPPORTED"]);
  const dry = await hooks(dir.path, ["install", "--dry-run"]);
  assertEquals(dry.json.data.action, "would-be-installed");
  assertEquals(await Deno.stat(join(dir.path, ".claude")).catch(() => null), null);
});

Deno.test("hooks install refuses a settings file that is not a JSON object or whose hooks are not one", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, ".claude", "settings.local.json");
  await writeText(path, '{ "hooks": [] }');
  const result = await hooks(dir.path, ["install"]);
  assertEquals([result.code, result.json.code], [1, "SETTINGS_INVALID"]);
  assertEquals(await Deno.readTextFile(path), '{ "hooks": [] }');
});
