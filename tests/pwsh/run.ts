/**
 * `deno task test:pwsh`: the PowerShell tests on their own. Installs the pinned pwsh and Pester
 * into their cache when they are missing (tests/support/pwsh.ts), runs every
 * tests/pwsh/*.Tests.ps1 under real pwsh and ends with "<passed> passed, <failed> failed".
 *
 *   deno task test:pwsh [--only <Name>]... [--binary <peaks> --version <v>] [--installer-shell <ps>]
 *
 * --only runs the files whose name starts with <Name> (Install, Compat, Completions, StatusLine);
 * --binary puts a compiled peaks into the first release instead of the stand-in (the release
 * workflow passes the one it built); --installer-shell runs install.ps1 under another PowerShell
 * (powershell.exe, Windows PowerShell 5.1).
 */
import { basename, parseArgs } from "../../lib/infra/std.ts";
import { installPwshTools } from "../support/pwsh.ts";
import { pesterFiles, runPester } from "./harness.ts";

const flags = parseArgs(Deno.args, {
  string: ["only", "binary", "version", "installer-shell"],
  collect: ["only"],
  unknown: (arg) => {
    console.error(`test:pwsh: unknown option ${arg}`);
    Deno.exit(2);
  },
});
const only = (flags.only ?? []) as string[];

let tools;
try {
  tools = await installPwshTools((line) => console.log(`test:pwsh: ${line}`));
} catch (error) {
  console.error(`test:pwsh: ${(error as Error).message}`);
  console.log("0 passed, 1 failed");
  Deno.exit(1);
}
const files = (await pesterFiles()).filter((file) =>
  only.length === 0 || only.some((name) => basename(file).startsWith(name))
);
if (files.length === 0) {
  console.error(`test:pwsh: no Pester file matches ${only.join(", ")}`);
  Deno.exit(2);
}
const result = await runPester({
  tools,
  files,
  binary: flags.binary as string | undefined,
  version: flags.version as string | undefined,
  installerShell: flags["installer-shell"] as string | undefined,
  onOutput: (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
});
for (const container of result.failedContainers) {
  console.log(`test:pwsh: failed to run ${container}`);
}
for (const test of result.tests.filter((t) => t.result === "Failed")) {
  console.log(`test:pwsh: FAILED ${test.file}: ${test.name}`);
}
console.log(`${result.passed} passed, ${result.failed} failed`);
Deno.exit(result.failed === 0 && result.passed > 0 ? 0 : 1);
