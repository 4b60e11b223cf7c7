/**
 * Records the `--help` pages of the pinned host CLIs into
 * tests/fixtures/hosts/help/ (run after changing a pinned version):
 *
 *     deno run -A --config deno.json tests/hosts/record_help.ts
 */
import { HELP_PAGES, helpFile, normalizeHelp } from "./support/help.ts";
import { type HostId, PINNED } from "./support/install.ts";
import { createSandbox } from "./support/sandbox.ts";

const hosts = Object.keys(PINNED) as HostId[];
await using sandbox = await createSandbox({ hosts });
for (const id of hosts) {
  for (const page of HELP_PAGES[id]) {
    const result = await sandbox.run(PINNED[id].bin, { args: page.args, timeoutMs: 120_000 });
    await Deno.writeTextFile(helpFile(page.name), normalizeHelp(result.stdout + result.stderr));
    console.log(`${page.name}: ${result.code}`);
  }
}
