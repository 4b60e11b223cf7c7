/**
 * The PowerShell tests (tests/pwsh/*.Tests.ps1) in the Deno suite: each Pester file is one test
 * and each of its Pester tests a step. They run with the pinned pwsh and Pester that
 * `deno task test:pwsh` installs into its cache; without them they are ignored, saying so.
 */
import { basename } from "../../lib/infra/std.ts";
import { findPwshTools } from "../support/pwsh.ts";
import { pesterFiles, runPester } from "./harness.ts";

const tools = await findPwshTools();
const files = await pesterFiles();

if (!("pwsh" in tools)) {
  Deno.test({
    name: `PowerShell: ${files.map((f) => basename(f)).join(", ")} (ignored: ${tools.missing} ` +
      "missing; `deno task test:pwsh` installs it)",
    ignore: true,
    fn() {},
  });
} else {
  for (const file of files) {
    Deno.test(`PowerShell: ${basename(file)} under pwsh with Pester`, async (t) => {
      const result = await runPester({ tools, files: [file] });
      for (const test of result.tests) {
        await t.step({
          name: test.name,
          ignore: test.result !== "Passed" && test.result !== "Failed",
          fn() {
            if (test.result === "Failed") throw new Error(test.error);
          },
        });
      }
      if (result.failedContainers.length) {
        throw new Error(`${result.failedContainers.join("\n")}\n${result.output}`);
      }
      if (result.passed === 0) throw new Error(`no Pester test passed:\n${result.output}`);
    });
  }
}
