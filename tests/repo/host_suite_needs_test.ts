/** A narrowed host suite run installs only the host CLIs its test files drive. */
import { assertEquals } from "@std/assert";
import { hostsNamedIn, hostsToInstall } from "../hosts/support/needs.ts";
import { PINNED } from "../hosts/support/install.ts";

const ALL = Object.keys(PINNED);
const here = new URL("../hosts/", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, here)).catch(() => undefined);

Deno.test("the files given decide which hosts are installed first", async () => {
  assertEquals(await hostsToInstall(["detached_codex_test.ts"], true, read), ["codex"]);
  assertEquals(
    await hostsToInstall(["extensions_test.ts"], false, read),
    ["codex", "gemini", "opencode", "copilot", "qwen"],
  );
  assertEquals(
    await hostsToInstall(["claude_hooks_test.ts", "detached_opencode_test.ts"], false, read),
    ["claude", "opencode"],
  );
  // help_test.ts walks every pinned host; a folder or a missing file counts as all of them.
  assertEquals(await hostsToInstall(["help_test.ts"], false, read), ALL);
  assertEquals(await hostsToInstall(["support"], false, read), ALL);
  assertEquals(await hostsToInstall([], false, read), ALL);
  assertEquals(await hostsToInstall([], true, read), []);
});

Deno.test("a file names a host by its quoted id or its adapter constant", () => {
  assertEquals(hostsNamedIn('import { COPILOT } from "./support/hosts.ts";'), ["copilot"]);
  assertEquals(hostsNamedIn('world("claude")'), ["claude"]);
  assertEquals(hostsNamedIn("no host here"), ALL);
});
