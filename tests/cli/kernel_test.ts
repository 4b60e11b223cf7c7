import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import { runNextAction } from "../support/next_actions.ts";
import { exists, tempDir } from "../support/temp.ts";
import { VERSION } from "../../lib/infra/command/build.ts";

Deno.test("an unknown command exits 2 with COMMAND_NOT_FOUND; a word close to none suggests nothing", async () => {
  await using dir = await tempDir();
  const result = await runPeaks(["frobnicate", "--json"], { cwd: dir.path });
  assertEquals(result.code, 2);
  assertEquals(result.json.ok, false);
  assertEquals(result.json.code, "COMMAND_NOT_FOUND");
  assertEquals(result.json.data.suggestion, null);
  assertEquals(result.json.nextActions, ["peaks --help --json"]);
  assertMatch(result.json.errorId, /^[0-9a-f-]{36}$/);
  assertEquals(result.stderr, "");
  const human = await runPeaks(["frobnicate"], { cwd: dir.path });
  assert(!human.stdout.includes("Did you mean") && !human.stderr.includes("Did you mean"));
  const typo = await runPeaks(["dotcor", "--json"], { cwd: dir.path });
  assertEquals(typo.json.data.suggestion, "peaks doctor");
});

Deno.test("a typo in a command suggests the nearest one", async () => {
  await using dir = await tempDir();
  const result = await runPeaks(["session", "inf", "--json"], { cwd: dir.path });
  assertEquals(result.code, 2);
  assertEquals(result.json.data.suggestion, "peaks session info");
});

Deno.test("--project that does not exist is PROJECT_NOT_FOUND and is never created", async () => {
  await using dir = await tempDir();
  const missing = `${dir.path}/does/not/exist`;
  const result = await runPeaks(["workspace", "init", "--project", missing, "--json"], {
    cwd: dir.path,
  });
  assertEquals(result.code, 1);
  assertEquals(result.json.code, "PROJECT_NOT_FOUND");
  assertEquals(await exists(`${dir.path}/does`), false);
});

Deno.test("--version prints the version; --json wraps it", async () => {
  await using dir = await tempDir();
  const plain = await runPeaks(["--version"], { cwd: dir.path });
  assertEquals(plain.code, 0);
  assertEquals(plain.stdout, `peaks ${VERSION}\n`);
  const json = await runPeaks(["--version", "--json"], { cwd: dir.path });
  assertEquals(json.json.data.version, VERSION);
});

Deno.test("an unknown flag exits 2 naming the flag and suggesting a close one", async () => {
  await using dir = await tempDir();
  const result = await runPeaks(["session", "list", "--limt", "3", "--json"], { cwd: dir.path });
  assertEquals(result.code, 2);
  assertEquals(result.json.code, "UNKNOWN_FLAG");
  assertEquals(result.json.data.suggestion, "--limit");
});

Deno.test("a bad flag value exits 2 naming the flag and the allowed values", async () => {
  await using dir = await tempDir();
  const result = await runPeaks(
    ["statusline", "install", "--scope", "galaxy", "--json"],
    { cwd: dir.path },
  );
  assertEquals(result.code, 2);
  assertEquals(result.json.code, "INVALID_FLAG_VALUE");
  assertEquals(result.json.data.flag, "scope");
  assertEquals(result.json.data.allowed, ["project", "user"]);
  assert(!result.stdout.includes("    at "), "no stack trace");
});

Deno.test("without --json errors go to stderr as one readable line, nothing on stdout", async () => {
  await using dir = await tempDir();
  const result = await runPeaks(["session", "info", "--active"], { cwd: dir.path });
  assertEquals(result.code, 1);
  assertEquals(result.stdout, "");
  assertMatch(result.stderr, /^error NO_ACTIVE_SESSION: /);
  assertMatch(result.stderr, /peaks workspace init --project /);
});

Deno.test("a usage error with no way forward of its own points at the command's help", async () => {
  await using dir = await tempDir();
  const bad = await runPeaks(["statusline", "install", "--scope", "galaxy"], { cwd: dir.path });
  assertEquals(bad.code, 2);
  assert(bad.stderr.includes("error INVALID_FLAG_VALUE"), bad.stderr);
  assert(bad.stderr.includes("next:\n  peaks statusline install --help"), bad.stderr);
  const extra = await runPeaks(["session", "list", "extra", "--json"], { cwd: dir.path });
  assertEquals(extra.json.nextActions, ["peaks session list --help --json"]);
  const help = await runNextAction(extra.json.nextActions[0], { cwd: dir.path });
  assertEquals(help.code, 0, help.stderr);
  assertEquals(help.json.ok, true);
});

Deno.test("PEAKS_PROFILE=1 adds one line of phases on stderr and leaves the envelope alone", async () => {
  await using dir = await tempDir();
  const plain = await runPeaks(["session", "list", "--json"], { cwd: dir.path });
  const profiled = await runPeaks(["session", "list", "--json"], {
    cwd: dir.path,
    env: { PEAKS_PROFILE: "1" },
  });
  assertEquals(profiled.code, plain.code);
  assertEquals(profiled.json.ok, plain.json.ok);
  assertMatch(
    profiled.stderr,
    /^peaks-profile \{"toCommandMs":[\d.]+,"loadMs":[\d.]+,"workMs":[\d.]+\}\n$/,
  );
  assert(!plain.stderr.includes("peaks-profile"));

  // A call that takes locks also says how many, how long it waited and how long it held them.
  await runPeaks(["workspace", "init", "--json"], { cwd: dir.path });
  const locked = await runPeaks(
    ["skill", "presence:set", "peaks-code", "--gate", "startup", "--json"],
    { cwd: dir.path, env: { PEAKS_PROFILE: "1", CLAUDECODE: "1" } },
  );
  assertEquals(locked.code, 0, locked.stderr);
  assertMatch(
    locked.stderr,
    /^peaks-profile \{"toCommandMs":[\d.]+,"loadMs":[\d.]+,"workMs":[\d.]+,"lockTurns":[1-9]\d*,"lockWaitMs":[\d.]+,"lockHoldMs":[\d.]+\}\n$/,
  );
});
