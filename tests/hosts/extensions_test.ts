/**
 * The host packages under extensions/: the Gemini CLI and Qwen Code extensions, the Codex and
 * Copilot CLI plugins (each folder a one-plugin marketplace). The real CLI validates (Gemini) and
 * installs each from its folder, offline, into a scratch home and lists it; a headless run in a
 * peaks workspace then gets peaks' resume line in what the host sends its model, so the package's
 * SessionStart hook ran `peaks hooks run`. Codex runs a plugin's hooks only once they are trusted:
 * the run passes `--dangerously-bypass-hook-trust`, the per-run form of that trust.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { fromFileUrl, join } from "../../lib/infra/std.ts";
import { CODEX, COPILOT, GEMINI, type HostAdapter, OPENCODE, QWEN } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, world } from "./support/scenario.ts";
import { sideAnswer, text, type View } from "./support/standin.ts";

const EXTENSIONS = fromFileUrl(new URL("../../extensions/", import.meta.url));

interface Case {
  adapter: HostAdapter;
  folder: string;
  /** The install commands, `DIR` standing for the package's folder. */
  install: string[][];
  /** The installer's trust question, answered. */
  stdin?: string;
  /** What lists the installed package (OpenCode has no list: its project config is read). */
  list?: string[];
  argv: string[];
  /** The prompt is the last argument, not stdin. */
  promptArg?: boolean;
}

const DIR = "DIR";

const CASES: Case[] = [
  {
    adapter: GEMINI,
    folder: "gemini",
    install: [["extensions", "install", DIR, "--consent", "--skip-settings"]],
    stdin: "y\n",
    list: ["extensions", "list"],
    argv: ["--skip-trust", "--output-format", "json"],
  },
  {
    adapter: QWEN,
    folder: "qwen",
    install: [["extensions", "install", DIR, "--consent"]],
    list: ["extensions", "list"],
    argv: ["--auth-type", "openai", "--output-format", "json"],
  },
  {
    adapter: CODEX,
    folder: "codex",
    install: [["plugin", "marketplace", "add", DIR], ["plugin", "add", "peaks@peaks"]],
    list: ["plugin", "list"],
    argv: ["exec", "--json", "--dangerously-bypass-hook-trust", "-s", "workspace-write", "-"],
  },
  {
    adapter: COPILOT,
    folder: "copilot",
    install: [["plugin", "marketplace", "add", DIR], ["plugin", "install", "peaks@peaks"]],
    list: ["plugin", "list"],
    argv: ["--output-format", "json", "--allow-all-tools"],
  },
  {
    adapter: OPENCODE,
    folder: "opencode",
    install: [["plugin", DIR]],
    argv: ["run", "--format", "json"],
    promptArg: true,
  },
];

for (const c of CASES) {
  Deno.test(
    `${c.adapter.id}: the peaks package installs offline and its hook adds the resume line`,
    {
      sanitizeOps: false,
      sanitizeResources: false,
    },
    async () => {
      await using w = await world(
        c.adapter,
        (view: View) => view.tools.length ? text("Hello.") : sideAnswer(view),
      );
      const host = c.adapter.id;
      const cli = (args: string[], stdin?: string) =>
        w.sandbox.run(host, { args, stdin, env: w.hostEnv, timeoutMs: HOST_TIMEOUT_MS });
      const dir = join(EXTENSIONS, c.folder);
      if (host === "gemini") {
        const validate = await cli(["extensions", "validate", dir]);
        assertEquals(validate.code, 0, validate.stdout + validate.stderr);
      }
      for (const command of c.install) {
        const install = await cli(command.map((arg) => arg === DIR ? dir : arg), c.stdin);
        assertEquals(install.code, 0, install.stdout + install.stderr);
      }
      if (c.list) {
        const list = await cli(c.list);
        assertStringIncludes(list.stdout + list.stderr, "peaks");
      } else {
        const config = join(w.sandbox.project, ".opencode", "opencode.json");
        assertStringIncludes(await Deno.readTextFile(config), dir);
      }

      const init = await w.sandbox.peaks(["workspace", "init", "--json"]);
      assertEquals(init.code, 0, init.stdout + init.stderr);
      const run = c.promptArg
        ? await cli([...c.argv, "Say hello."])
        : await cli(c.argv, "Say hello.");
      assertEquals(run.code, 0, run.stdout + run.stderr);
      const [first] = w.standIn.calls().filter((call) => call.view!.tools.length > 0);
      assert(first, "the host sent no agent request");
      assertStringIncludes(
        JSON.stringify(first.body),
        "no open request; sub-agents: 0 live, 0 stale",
      );
    },
  );
}
