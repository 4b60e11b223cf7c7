/**
 * Every flag peaks passes a vendor CLI, in every permission posture and in
 * both prompt forms, is one the pinned CLI's own `--help` lists (recorded in
 * tests/fixtures/hosts/help/; the host suite checks the recordings against
 * the real CLIs). Choice values are checked too where the help lists them,
 * and every effort value a vendor's table lists is one its help lists.
 */
import { assert } from "@std/assert";
import { VENDORS } from "../../lib/hosts/vendors.ts";
import { VENDOR_PERMISSIONS } from "../../lib/state/preferences.ts";
import { invocation, TUNING_FLAGS, VENDOR_CLI } from "../../lib/detached/vendor_cli.ts";
import { HELP_PAGES, helpFile } from "../hosts/support/help.ts";

/** Flags whose value is free text (a prompt, a path, a rule, a config override). */
const FREE_VALUE = new Set([
  "-p",
  "--policy",
  "--allowedTools",
  "--allow-tool",
  "-c",
  "--add-dir",
]);

function helpOf(vendor: string): string {
  return HELP_PAGES[vendor as keyof typeof HELP_PAGES]
    .map((page) => Deno.readTextFileSync(helpFile(page.name)))
    .join("\n");
}

function listsFlag(help: string, flag: string): boolean {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[\\s,\\[])${escaped}(?=[\\s,=<\\[]|$)`, "m").test(help);
}

for (const vendor of VENDORS) {
  Deno.test(`${vendor}: every flag peaks passes is in the pinned CLI's --help`, () => {
    const help = helpOf(vendor);
    assert(!listsFlag(help, "--no-such-flag-anywhere"), "the check would pass anything");
    for (const permissions of VENDOR_PERMISSIONS) {
      // An isolated slice's run also names the main project's .peaks as writable.
      // With the role's model and effort, so their flags are checked too.
      const launch = {
        permissions,
        runDir: "/run",
        writable: ["/project/.peaks"],
        model: "model-1",
        effort: "high",
      };
      const forms = [
        invocation(vendor, "PROMPT", launch).args,
        VENDOR_CLI[vendor].args("PROMPT", launch),
      ];
      for (const args of forms) {
        args.forEach((word, i) => {
          if (!word.startsWith("-") || word === "-") return;
          if (i > 0 && FREE_VALUE.has(args[i - 1])) return;
          assert(listsFlag(help, word), `${vendor} (${permissions}): ${word} is not in its --help`);
          const value = args[i + 1];
          if (value === undefined || value.startsWith("-") || FREE_VALUE.has(word)) return;
          if (value === "PROMPT") return;
          // A choice value: the help names it (acceptEdits, workspace-write, auto_edit, stream-json…).
          if (/^[a-z][a-zA-Z_-]*$/.test(value)) {
            assert(
              help.includes(value),
              `${vendor} (${permissions}): ${word} ${value} is not in its --help`,
            );
          }
        });
      }
    }
  });
}

Deno.test("the effort values peaks lets through a vendor's effort flag are the ones its help lists", () => {
  for (const vendor of VENDORS) {
    const effort = TUNING_FLAGS[vendor].effort;
    if (!effort?.values) continue;
    const help = helpOf(vendor);
    for (const value of effort.values) {
      assert(help.includes(value), `${vendor}: effort ${value} is not in its --help`);
    }
  }
});

Deno.test("codex: an isolated slice's run may write the main project's .peaks, nothing more", () => {
  const writable = ["/project/.peaks"];
  const role = invocation("codex", "PROMPT", { permissions: "role", runDir: "/run", writable })
    .args;
  const at = role.indexOf("--add-dir");
  assert(at > 0 && role[at + 1] === "/project/.peaks", role.join(" "));
  assert(role.filter((word) => word === "--add-dir").length === 1);
  const plain = invocation("codex", "PROMPT", { permissions: "role", runDir: "/run" }).args;
  assert(!plain.includes("--add-dir"), plain.join(" "));
});
