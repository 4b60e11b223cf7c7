import { assert, assertEquals, assertMatch } from "@std/assert";
import { exists, tempDir, writeText } from "../../support/temp.ts";
import { pool, runPeaks } from "../../support/cli.ts";
import { runNextAction } from "../../support/next_actions.ts";

async function setup(path: string) {
  const peaks = (...args: string[]) => runPeaks([...args, "--json"], { cwd: path });
  const init = await peaks("workspace", "init");
  assertEquals(init.code, 0);
  return {
    peaks,
    sid: init.json.data.sessionId as string,
    file: `${path}/.peaks/preferences.json`,
  };
}

const readPrefs = async (file: string) => JSON.parse(await Deno.readTextFile(file));

Deno.test("get shows the defaults and every settable key with its allowed values", async () => {
  await using dir = await tempDir();
  const { peaks } = await setup(dir.path);
  const got = await peaks("preferences", "get");
  assertEquals(got.code, 0);
  assertEquals(got.json.data.exists, false);
  assertEquals(got.json.data.preferences, { schema_version: "2.0.0" });
  const keys = Object.fromEntries(
    got.json.data.keys.map((k: { key: string; allowed: string[] }) => [k.key, k.allowed]),
  );
  assertEquals(keys.autoUpgradePrompt, ["opt-in", "skip-this-session", "skip-forever"]);
  assertEquals(keys["headroom.enabled"], ["true", "false"]);
  assertEquals(keys["headroom.defaultMode"], ["balanced", "aggressive", "conservative"]);
  assertEquals(keys.swarmMode, ["full-auto", "assisted", "swarm", "strict", "24h"]);
  assert("headroom.baseUrl" in keys && "autoUpgradePromptSessionId" in keys);
  const one = await peaks("preferences", "get", "--key", "swarmMode");
  assertEquals([one.json.data.value, one.json.data.isSet], [null, false]);
});

Deno.test("set previews before/after without writing; its nextAction applies it", async () => {
  await using dir = await tempDir();
  const { peaks, file } = await setup(dir.path);
  const preview = await peaks(
    "preferences",
    "set",
    "--key",
    "autoUpgradePrompt",
    "--value",
    "opt-in",
  );
  assertEquals(preview.code, 0);
  assertEquals(preview.json.data.preview, true);
  assertEquals(preview.json.data.before, { schema_version: "2.0.0" });
  assertEquals(preview.json.data.after, { schema_version: "2.0.0", autoUpgradePrompt: "opt-in" });
  assertEquals(await exists(file), false);
  const applied = await runNextAction(preview.json.nextActions[0], { cwd: dir.path });
  assertEquals(applied.json.data.applied, true);
  assertEquals(await readPrefs(file), { schema_version: "2.0.0", autoUpgradePrompt: "opt-in" });
  const again = await runNextAction(preview.json.nextActions[0], { cwd: dir.path });
  assertEquals([again.json.data.changed, again.json.data.applied], [false, false]);
});

Deno.test("values are JSON, plain strings for string keys, and dotted keys reach nested ones", async () => {
  await using dir = await tempDir();
  const { peaks, file } = await setup(dir.path);
  const sets: [string, string][] = [
    ["headroom.enabled", "true"],
    ["headroom.defaultMode", '"aggressive"'],
    ["headroom.baseUrl", "http://127.0.0.1:8787"],
    ["swarmMode", "assisted"],
  ];
  for (const [key, value] of sets) {
    const result = await peaks("preferences", "set", "--key", key, "--value", value, "--apply");
    assertEquals(result.code, 0, `${key}: ${result.stdout}`);
  }
  assertEquals(await readPrefs(file), {
    schema_version: "2.0.0",
    headroom: { enabled: true, defaultMode: "aggressive", baseUrl: "http://127.0.0.1:8787" },
    swarmMode: "assisted",
  });
  const whole = await peaks(
    "preferences",
    "set",
    "--key",
    "headroom",
    "--value",
    '{"enabled":false}',
    "--apply",
  );
  assertEquals(whole.json.data.valueAfter, { enabled: false });
  const got = await peaks("preferences", "get", "--key", "headroom.enabled");
  assertEquals(got.json.data.value, false);
});

Deno.test("unknown keys and invalid values are usage errors listing what is allowed", async () => {
  await using dir = await tempDir();
  const { peaks, file } = await setup(dir.path);
  const unknown = await peaks("preferences", "set", "--key", "headroom.enabld", "--value", "true");
  assertEquals(unknown.code, 2);
  assertEquals(unknown.json.code, "UNKNOWN_PREFERENCE_KEY");
  assertEquals(unknown.json.data.suggestion, "headroom.enabled");
  assert(unknown.json.data.allowed.includes("swarmMode"));
  const cases: [string, string, string[]][] = [
    ["autoUpgradePrompt", "sometimes", ["opt-in", "skip-this-session", "skip-forever"]],
    ["headroom.enabled", "yes", ["true", "false"]],
    ["swarmMode", "3", ["full-auto", "assisted", "swarm", "strict", "24h"]],
    ["headroom.baseUrl", "ftp://host", []],
    ["headroom", '{"colour":"red"}', []],
  ];
  for (const [key, value, allowed] of cases) {
    const bad = await peaks("preferences", "set", "--key", key, "--value", value, "--apply");
    assertEquals(bad.code, 2, `${key}=${value}`);
    assertEquals(bad.json.code, "INVALID_PREFERENCE_VALUE");
    assertEquals(bad.json.data.allowed, allowed);
    assertMatch(bad.json.message, new RegExp(`not valid for ${key.replace(".", "\\.")} .*: use `));
  }
  const getUnknown = await peaks("preferences", "get", "--key", "colour");
  assertEquals(getUnknown.code, 2);
  const readOnly = await peaks("preferences", "set", "--key", "schema_version", "--value", "1.0.0");
  assertEquals(readOnly.json.code, "UNKNOWN_PREFERENCE_KEY");
  assertEquals(await exists(file), false);
});

Deno.test("skip-this-session records the session that chose it; another choice clears it", async () => {
  await using dir = await tempDir();
  const { peaks, sid, file } = await setup(dir.path);
  await peaks(
    "preferences",
    "set",
    "--key",
    "autoUpgradePrompt",
    "--value",
    "skip-this-session",
    "--apply",
  );
  assertEquals(await readPrefs(file), {
    schema_version: "2.0.0",
    autoUpgradePrompt: "skip-this-session",
    autoUpgradePromptSessionId: sid,
  });
  await peaks(
    "preferences",
    "set",
    "--key",
    "autoUpgradePrompt",
    "--value",
    "skip-forever",
    "--apply",
  );
  assertEquals(await readPrefs(file), {
    schema_version: "2.0.0",
    autoUpgradePrompt: "skip-forever",
  });
});

Deno.test("reset removes one key or everything, and replaces a broken file", async () => {
  await using dir = await tempDir();
  const { peaks, file } = await setup(dir.path);
  await peaks("preferences", "set", "--key", "headroom.enabled", "--value", "true", "--apply");
  await peaks("preferences", "set", "--key", "swarmMode", "--value", "strict", "--apply");
  const preview = await peaks("preferences", "reset", "--key", "headroom.enabled");
  assertEquals(preview.json.data.after, { schema_version: "2.0.0", swarmMode: "strict" });
  assertEquals((await readPrefs(file)).headroom, { enabled: true });
  await runNextAction(preview.json.nextActions[0], { cwd: dir.path });
  assertEquals(await readPrefs(file), { schema_version: "2.0.0", swarmMode: "strict" });

  await writeText(file, "{ not json");
  const broken = await peaks("preferences", "get");
  assertEquals(broken.code, 1);
  assertEquals(broken.json.code, "RECORD_UNREADABLE");
  const repaired = await runNextAction(broken.json.nextActions[0], { cwd: dir.path });
  assertEquals(repaired.code, 0);
  assertEquals(repaired.json.data.changed, true);
  assertEquals(await readPrefs(file), { schema_version: "2.0.0" });
});

Deno.test("--apply needs a workspace and never creates .peaks on its own", async () => {
  await using dir = await tempDir();
  const result = await runPeaks(
    ["preferences", "set", "--key", "swarmMode", "--value", "swarm", "--apply", "--json"],
    { cwd: dir.path },
  );
  assertEquals(result.code, 1);
  assertEquals(result.json.code, "NO_WORKSPACE");
  assertEquals(await exists(`${dir.path}/.peaks`), false);
  const preview = await runPeaks([
    "preferences",
    "set",
    "--key",
    "swarmMode",
    "--value",
    "swarm",
    "--json",
  ], {
    cwd: dir.path,
  });
  assertEquals(preview.code, 0);
  const init = await runNextAction(result.json.nextActions[0], { cwd: dir.path });
  assertEquals(init.code, 0);
});

Deno.test("concurrent sets of different keys all survive", async () => {
  await using dir = await tempDir();
  const { file } = await setup(dir.path);
  const sets: [string, string][] = [
    ["headroom.enabled", "true"],
    ["headroom.defaultMode", "balanced"],
    ["headroom.baseUrl", "http://localhost:1"],
    ["swarmMode", "24h"],
    ["autoUpgradePrompt", "opt-in"],
  ];
  const results = await pool(
    sets.length,
    sets.length,
    (i) =>
      runPeaks([
        "preferences",
        "set",
        "--key",
        sets[i][0],
        "--value",
        sets[i][1],
        "--apply",
        "--json",
      ], {
        cwd: dir.path,
      }),
  );
  assert(results.every((r) => r.code === 0));
  assertEquals(await readPrefs(file), {
    schema_version: "2.0.0",
    headroom: { enabled: true, defaultMode: "balanced", baseUrl: "http://localhost:1" },
    swarmMode: "24h",
    autoUpgradePrompt: "opt-in",
  });
});

Deno.test("a 1.x preferences file is read and changed in place: nothing it had is lost", async () => {
  await using dir = await tempDir();
  const { peaks, file } = await setup(dir.path);
  const oneX = { schema_version: "1.0.0", theme: "dark", swarmMode: "assisted", notes: [1, 2] };
  await writeText(file, JSON.stringify(oneX));
  const got = await peaks("preferences", "get", "--key", "swarmMode");
  assertEquals([got.code, got.json.data.value], [0, "assisted"]);
  const set = await peaks(
    "preferences",
    "set",
    "--key",
    "autoUpgradePrompt",
    "--value",
    "skip-forever",
    "--apply",
  );
  assertEquals(set.code, 0, JSON.stringify(set.json));
  assertEquals(await readPrefs(file), { ...oneX, autoUpgradePrompt: "skip-forever" });
  // The upgrade check still sees a 1.x file, and now reads the stored choice.
  const check = await peaks("upgrade", "--detect-1x");
  assertEquals(check.json.data.decision, "skip", JSON.stringify(check.json.data));
});

Deno.test("a whole-file reset keeps the old file as a backup, 1.x or broken", async () => {
  await using dir = await tempDir();
  const { peaks, file } = await setup(dir.path);
  const oneX = { schema_version: "1.0.0", theme: "dark" };
  await writeText(file, JSON.stringify(oneX));
  const reset = await peaks("preferences", "reset", "--apply");
  assertEquals(reset.code, 0);
  const backup = reset.json.data.backup as string;
  assertMatch(backup, /^\.peaks\/preferences\.json\.\d{8}T\d+Z\.bak$/);
  assertEquals(JSON.parse(await Deno.readTextFile(`${dir.path}/${backup}`)), oneX);
  assertEquals(await readPrefs(file), { schema_version: "2.0.0" });
  const again = await peaks("preferences", "reset", "--apply");
  assertEquals([again.json.data.changed, again.json.data.backup], [false, null]);
});
