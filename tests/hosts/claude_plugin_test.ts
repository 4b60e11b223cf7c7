/**
 * The repository is a Claude Code plugin and marketplace: the real host
 * validates it with no warning, adds it as a local marketplace, installs the
 * plugin into a scratch home, and then lists peaks' skills (namespaced as a
 * plugin's) in what it sends its model. `plugin details` gives the token
 * cost docs/skills-install.md records.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { fromFileUrl } from "../../lib/infra/std.ts";
import { ADAPTERS } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, world } from "./support/scenario.ts";
import { sideAnswer, text, type View } from "./support/standin.ts";

const CLONE = fromFileUrl(new URL("../../", import.meta.url)).replace(/\/$/, "");
const DESCRIPTION = "Orchestrates a code change end to end with the peaks CLI";

Deno.test(
  "claude: the plugin validates, installs from the local marketplace and its skills reach the model",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    await using w = await world(
      ADAPTERS.claude!,
      (view: View) => view.tools.length ? text("Hello.") : sideAnswer(view),
    );
    const claude = (args: string[], stdin?: string) =>
      w.sandbox.run("claude", { args, stdin, env: w.hostEnv, timeoutMs: HOST_TIMEOUT_MS });

    const validate = await claude(["plugin", "validate", CLONE]);
    assertEquals(validate.code, 0, validate.stdout + validate.stderr);
    const said = `${validate.stdout}\n${validate.stderr}`;
    assert(!/warning/i.test(said), said);

    const add = await claude(["plugin", "marketplace", "add", CLONE]);
    assertEquals(add.code, 0, add.stdout + add.stderr);
    const install = await claude(["plugin", "install", "peaks@peaks"]);
    assertEquals(install.code, 0, install.stdout + install.stderr);

    const details = await claude(["plugin", "details", "peaks"]);
    assertEquals(details.code, 0, details.stdout + details.stderr);
    for (
      const skill of ["peaks-code", "peaks-rd", "peaks-qa", "peaks-prd", "peaks-ui", "peaks-txt"]
    ) {
      assertStringIncludes(details.stdout, skill);
    }

    const run = await claude(["-p", "--output-format", "json"], "Say hello.");
    assertEquals(run.code, 0, run.stdout + run.stderr);
    const [first] = w.standIn.calls().filter((call) => call.view!.tools.length > 0);
    assert(first, "the host sent no agent request");
    const sent = JSON.stringify(first.body);
    assertStringIncludes(sent, "peaks:peaks-code");
    assertStringIncludes(sent, DESCRIPTION);
    assert(first.view!.tools.includes("Skill"), `no Skill tool: ${first.view!.tools}`);
  },
);
