/**
 * The release archive carries every host package: built like a release (release/package.ts around
 * a stand-in executable, no `deno compile`), installed by install.sh into a scratch $PEAKS_HOME,
 * then each real host CLI validates and installs its package from $PEAKS_HOME, offline: the Claude
 * Code plugin ($PEAKS_HOME itself, a marketplace, with hooks/hooks.json), the Gemini CLI and Qwen
 * Code extensions, the Codex and Copilot CLI plugins and the OpenCode plugin (extensions/<host>). What each package's
 * hooks then do in a run is tests/hosts/extensions_test.ts and claude_hooks_test.ts.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { projectVersion } from "../../release/package.ts";
import { buildRelease, HOST, INSTALL_SH } from "../support/release.ts";
import type { HostId } from "./support/install.ts";
import { createSandbox } from "./support/sandbox.ts";
import { HOST_TIMEOUT_MS } from "./support/scenario.ts";

/** Per host: the commands, `HOME_DIR` standing for the package's folder under $PEAKS_HOME. */
const AT = "HOME_DIR";
const STEPS: Array<{ host: HostId; dir: string; commands: string[][]; stdin?: string }> = [
  {
    host: "claude",
    dir: "",
    commands: [
      ["plugin", "validate", AT],
      ["plugin", "marketplace", "add", AT],
      ["plugin", "install", "peaks@peaks"],
      ["plugin", "list"],
    ],
  },
  {
    host: "gemini",
    dir: "extensions/gemini",
    commands: [
      ["extensions", "validate", AT],
      ["extensions", "install", AT, "--consent", "--skip-settings"],
      ["extensions", "list"],
    ],
    stdin: "y\n",
  },
  {
    host: "qwen",
    dir: "extensions/qwen",
    commands: [["extensions", "install", AT, "--consent"], ["extensions", "list"]],
  },
  {
    host: "codex",
    dir: "extensions/codex",
    commands: [["plugin", "marketplace", "add", AT], ["plugin", "add", "peaks@peaks"], [
      "plugin",
      "list",
    ]],
  },
  {
    host: "copilot",
    dir: "extensions/copilot",
    commands: [["plugin", "marketplace", "add", AT], ["plugin", "install", "peaks@peaks"], [
      "plugin",
      "list",
    ]],
  },
  { host: "opencode", dir: "extensions/opencode", commands: [["plugin", AT]] },
];

/** Files under `dir` whose text holds `needle`. */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await Array.fromAsync(Deno.readDir(dir)).catch(() => [] as Deno.DirEntry[]);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) found.push(...await filesHolding(path, needle));
    else if (entry.isFile && entry.name.endsWith(".json")) {
      if ((await Deno.readTextFile(path)).includes(needle)) found.push(path);
    }
  }
  return found;
}

Deno.test(
  {
    name: "every host package installs offline from the release archive's contents in $PEAKS_HOME",
    ignore: HOST === undefined,
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    await using sandbox = await createSandbox({ hosts: STEPS.map((s) => s.host) });
    const version = await projectVersion();
    const release = await buildRelease(join(sandbox.root, "release"), {
      version,
      target: HOST!,
    });
    const peaksHome = join(sandbox.root, "peaks-home");
    const install = await sandbox.run("sh", {
      args: [
        INSTALL_SH,
        "--archive",
        release.archive,
        "--checksums",
        release.sums,
        "--yes",
        "--no-modify-path",
      ],
      env: { PEAKS_HOME: peaksHome },
      timeoutMs: HOST_TIMEOUT_MS,
    });
    assertEquals(install.code, 0, install.stdout + install.stderr);
    for (const step of STEPS) {
      const dir = step.dir ? join(peaksHome, step.dir) : peaksHome;
      for (const command of step.commands) {
        const args = command.map((arg) => arg === AT ? dir : arg);
        const result = await sandbox.run(step.host, {
          args,
          stdin: step.stdin,
          timeoutMs: HOST_TIMEOUT_MS,
        });
        const said = result.stdout + result.stderr;
        assertEquals(result.code, 0, `${step.host} ${args.join(" ")}: ${said}`);
        if (command.at(-1) === "list") assertStringIncludes(said, "peaks", step.host);
      }
    }
    const opencode = join(sandbox.project, ".opencode", "opencode.json");
    assertStringIncludes(
      await Deno.readTextFile(opencode),
      join(peaksHome, "extensions", "opencode"),
    );
    // Claude Code copies the plugin: the copy carries the hooks from the archive.
    const copies = await filesHolding(
      join(sandbox.home, ".claude"),
      "peaks hooks run --host claude-code",
    );
    assert(copies.length > 0, "the installed Claude Code plugin has no peaks hooks");
  },
);
