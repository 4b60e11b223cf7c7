/**
 * The recorded --help pages that the unit suite checks peaks' vendor argv
 * against are what the pinned CLIs really print.
 */
import { assertEquals } from "@std/assert";
import { HELP_PAGES, helpFile, normalizeHelp } from "./support/help.ts";
import { type HostId, PINNED } from "./support/install.ts";
import { createSandbox } from "./support/sandbox.ts";

for (const id of Object.keys(PINNED) as HostId[]) {
  Deno.test(`${id} ${PINNED[id].version}: its --help pages are the recorded ones`, {
    sanitizeOps: false,
    sanitizeResources: false,
  }, async () => {
    await using sandbox = await createSandbox({ hosts: [id] });
    for (const page of HELP_PAGES[id]) {
      const result = await sandbox.run(PINNED[id].bin, { args: page.args, timeoutMs: 120_000 });
      assertEquals(result.code, 0, result.stderr);
      assertEquals(
        normalizeHelp(result.stdout + result.stderr),
        await Deno.readTextFile(helpFile(page.name)),
        `${page.name}: the pinned CLI's help changed; re-record with tests/hosts/record_help.ts`,
      );
    }
  });
}
