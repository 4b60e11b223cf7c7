/**
 * The binary's permission set at work, through the real entry point with
 * -P=peaks: network to a non-loopback address, starting a program the set
 * does not list and importing remote code are refused by the runtime, and
 * peaks reports each refusal in an envelope, never a stack trace.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/core/std.ts";
import { baseEnv, CONFIG, runPeaks } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";

const TRACE = /Uncaught|^\s+at |error: /m;

Deno.test("network to a non-loopback address is refused before any packet, with a clear envelope", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "p.md"), "prompt\n");
  // 192.0.2.1 is a documentation address; the runtime refuses it before any lookup or connect.
  const result = await runPeaks(
    ["context", "check", "--prompt-file", "p.md", "--use-headroom", "--json"],
    { cwd: dir.path, env: { HEADROOM_BASE_URL: "http://192.0.2.1:8787" } },
  );
  assertEquals(result.code, 0, result.stdout);
  const warning = result.json.warnings.find((w: { code: string }) =>
    w.code === "HEADROOM_UNAVAILABLE"
  );
  assert(warning, result.stdout);
  assertStringIncludes(warning.message + JSON.stringify(result.json.data), "NotCapable");
  assert(!TRACE.test(result.stderr), result.stderr);
});

Deno.test("starting a program the permission set does not list is PERMISSION_DENIED, not a trace", async () => {
  await using dir = await tempDir();
  for (const program of ["sh", "/bin/sh", "curl"]) {
    const result = await runPeaks(["debug", "run-probe", program, "--json"], { cwd: dir.path });
    assertEquals([result.code, result.json?.code], [1, "PERMISSION_DENIED"], result.stdout);
    assertStringIncludes(result.json.message, "not allowed");
    assert(!TRACE.test(result.stderr), result.stderr);
    const human = await runPeaks(["debug", "run-probe", program], { cwd: dir.path });
    assertEquals(human.code, 1);
    assert(human.stderr.startsWith("error PERMISSION_DENIED:"), human.stderr);
  }
  const git = await runPeaks(["debug", "run-probe", "git", "--json"], { cwd: dir.path });
  assertEquals([git.code, git.json.data.permission, git.json.data.started], [0, "granted", false]);
});

Deno.test("remote code cannot be imported under the binary's permission set", async () => {
  await using dir = await tempDir();
  const script = join(dir.path, "import_remote.ts");
  await Deno.writeTextFile(
    script,
    `try { await import("https://" + "deno.land/std/version.ts"); console.log("imported"); }
     catch (e) { console.log(e instanceof Error ? e.message.split("\\n")[0] : String(e)); }`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "--cached-only", "-P=peaks", "--config", CONFIG, script],
    cwd: dir.path,
    env: await baseEnv({ cwd: dir.path }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assertStringIncludes(text, 'Requires import access to "deno.land:443"');
});
