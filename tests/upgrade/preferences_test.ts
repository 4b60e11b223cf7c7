import { assert, assertEquals } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import { tempDir, writeText } from "../support/temp.ts";

const FIXTURE = new URL("../fixtures/upgrade/preferences-1x.json", import.meta.url);

Deno.test("upgrade moves a 1.x preferences file's keys field by field and names what stayed behind", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const root = `${dir.path}/app`;
  const original = await Deno.readTextFile(FIXTURE);
  await writeText(`${root}/.peaks/preferences.json`, original);
  const run = await runPeaks(
    ["upgrade", "--to", "2.0", "--auto", "--project", root, "--json"],
    { cwd: root, home },
  );
  assertEquals(run.code, 0, run.stderr);
  const prefs = JSON.parse(await Deno.readTextFile(`${root}/.peaks/preferences.json`));
  assertEquals(prefs, {
    schema_version: "2.0.0",
    autoUpgradePrompt: "skip-this-session",
    autoUpgradePromptSessionId: "2026-06-07-session-77aa00",
    swarmMode: "full-auto",
    headroom: { enabled: true, defaultMode: "balanced" },
  });
  const report = run.json.data.steps.find((s: { step: string }) => s.step === "preferences");
  assertEquals(report.status, "changed");
  const [, moved, left] = report.details as string[];
  assertEquals(
    moved,
    "moved: autoUpgradePrompt, autoUpgradePromptSessionId, swarmMode, headroom.enabled, headroom.defaultMode",
  );
  assert(left.startsWith("not moved"), left);
  assert(left.endsWith(": headroom.compressLogs, detached.vendorPermissions, theme"), left);
  // Nothing is lost: the backup holds the 1.x file byte for byte.
  const backup = `${root}/${run.json.data.backupDir}/.peaks/preferences.json`;
  assertEquals(await Deno.readTextFile(backup), original);
  assert(left.includes(`${run.json.data.backupDir}/.peaks/preferences.json`), left);
});
