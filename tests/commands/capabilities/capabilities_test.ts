import { assertEquals, assertMatch } from "@std/assert";
import { HOSTS } from "../../../lib/hosts/registry.ts";
import { join } from "../../../lib/infra/std.ts";
import { runPeaks } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";

Deno.test("capabilities lists a Claude Code and a Gemini CLI MCP config with each host's tool prefix", async () => {
  await using dir = await tempDir();
  const project = join(dir.path, "app");
  const home = join(dir.path, "home");
  await Deno.mkdir(project, { recursive: true });
  await writeText(
    join(project, ".mcp.json"),
    JSON.stringify({ mcpServers: { playwright: { command: "npx" }, db: { command: "x" } } }),
  );
  // Gemini's settings may carry comments.
  await writeText(
    join(home, ".gemini", "settings.json"),
    '{\n  // design\n  "mcpServers": { "figma": { "command": "npx" } },\n}\n',
  );
  const run = (...args: string[]) =>
    runPeaks(["capabilities", ...args, "--json"], { cwd: project, home });
  const claude = await run("--ide", "claude-code");
  assertEquals(claude.code, 0, claude.stderr);
  const byName = (r: typeof claude) =>
    Object.fromEntries(
      r.json.data.servers.map((s: { name: string; toolPrefix: string }) => [s.name, s.toolPrefix]),
    );
  assertEquals(byName(claude), { db: "mcp__db__", playwright: "mcp__playwright__" });
  assertEquals(claude.json.data.servers[1].kind, "browser");
  const gemini = await run("--ide", "gemini");
  assertEquals(byName(gemini), { figma: "mcp_figma_" });
  assertEquals(gemini.json.data.servers[0].source, "~/.gemini/settings.json");
  const missing = gemini.json.data.missing.map((m: { name: string }) => m.name);
  assertEquals(missing.includes("playwright"), true);
  assertMatch(
    gemini.json.data.missing[0].addCommand,
    /^gemini mcp add -s user playwright npx -y @playwright\/mcp@latest$/,
  );
});

Deno.test("no MCP server: an empty list and the host's own add command", async () => {
  await using dir = await tempDir();
  for (
    const [ide, add] of [
      ["codex", /^codex mcp add playwright -- npx/],
      ["opencode", /^opencode mcp add playwright -- npx/],
      ["copilot", /^copilot mcp add playwright/],
      ["qwen", /^qwen mcp add -s user playwright/],
    ] as const
  ) {
    const r = await runPeaks(["capabilities", "--ide", ide, "--json"], { cwd: dir.path });
    assertEquals(r.code, 0, r.stderr);
    assertEquals(r.json.data.servers, []);
    assertMatch(r.json.data.missing[0].addCommand, add);
  }
  const human = await runPeaks(["capabilities", "--ide", "opencode"], { cwd: dir.path });
  assertMatch(human.stdout, /tools are named <server>_<tool>/);
  assertMatch(human.stdout, /MCP servers: none configured/);
});

Deno.test("codex and opencode configs are read in their own formats; a broken file is reported", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  await writeText(
    join(home, ".codex", "config.toml"),
    '[mcp_servers.playwright]\ncommand = "npx"\n\n[mcp_servers."chrome-devtools".env]\nX = "1"\n',
  );
  await writeText(join(dir.path, "opencode.json"), '{"mcp": {"context7": {"type": "local"}}}');
  await writeText(join(dir.path, ".gemini", "settings.json"), "{ nope");
  const run = (ide: string) =>
    runPeaks(["capabilities", "--ide", ide, "--json"], { cwd: dir.path, home });
  const codex = await run("codex");
  assertEquals(
    codex.json.data.servers.map((s: { name: string }) => s.name),
    ["chrome-devtools", "playwright"],
  );
  const opencode = await run("opencode");
  assertEquals(opencode.json.data.servers[0].toolPrefix, "context7_");
  const gemini = await run("gemini");
  assertEquals(gemini.code, 0);
  assertEquals(gemini.json.data.files[0].status, "unreadable");
});

Deno.test("capabilities reads each host's MCP facts from its host file", async () => {
  await using dir = await tempDir();
  // Copilot CLI reads the project's .mcp.json too (lib/hosts/copilot.ts).
  await writeText(
    join(dir.path, ".mcp.json"),
    JSON.stringify({ mcpServers: { figma: { command: "npx" } } }),
  );
  for (const host of HOSTS) {
    const r = await runPeaks(["capabilities", "--ide", host.id, "--json"], { cwd: dir.path });
    const readable = host.mcp !== null && host.mcp.files.length > 0;
    assertEquals(r.code, readable ? 0 : 2, `${host.id}: ${r.stdout}`);
    if (!readable) continue;
    assertEquals([r.json.data.toolName, r.json.data.addCommand], [
      host.mcp!.toolName,
      host.mcp!.add,
    ]);
  }
  const copilot = await runPeaks(["capabilities", "--ide", "copilot", "--json"], { cwd: dir.path });
  assertEquals(copilot.json.data.servers.map((s: { toolPrefix: string }) => s.toolPrefix), [
    "figma-",
  ]);
});
