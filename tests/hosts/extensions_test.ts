/**
 * The Gemini CLI and Qwen Code extensions (extensions/gemini, extensions/qwen): the real CLI
 * validates and installs each from its folder, offline, into a scratch home; a headless run in a
 * peaks workspace then gets peaks' resume line in what the host sends its model, so the
 * extension's SessionStart hook ran `peaks hooks run`.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { fromFileUrl, join } from "../../lib/infra/std.ts";
import { GEMINI, type HostAdapter, QWEN } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, world } from "./support/scenario.ts";
import { sideAnswer, text, type View } from "./support/standin.ts";

const EXTENSIONS = fromFileUrl(new URL("../../extensions/", import.meta.url));

interface Case {
  adapter: HostAdapter;
  folder: string;
  install: string[];
  /** The installer's trust question, answered. */
  stdin?: string;
  argv: string[];
}

const CASES: Case[] = [
  {
    adapter: GEMINI,
    folder: "gemini",
    install: ["extensions", "install", "--consent", "--skip-settings"],
    stdin: "y\n",
    argv: ["--skip-trust", "--output-format", "json"],
  },
  {
    adapter: QWEN,
    folder: "qwen",
    install: ["extensions", "install", "--consent"],
    argv: ["--auth-type", "openai", "--output-format", "json"],
  },
];

for (const c of CASES) {
  Deno.test(
    `${c.adapter.id}: the peaks extension installs offline and its hook adds the resume line`,
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
      const install = await cli([...c.install.slice(0, 2), dir, ...c.install.slice(2)], c.stdin);
      assertEquals(install.code, 0, install.stdout + install.stderr);
      const list = await cli(["extensions", "list"]);
      assertStringIncludes(list.stdout + list.stderr, "peaks");

      const init = await w.sandbox.peaks(["workspace", "init", "--json"]);
      assertEquals(init.code, 0, init.stdout + init.stderr);
      const run = await cli(c.argv, "Say hello.");
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
