import { assertEquals } from "@std/assert";
import { detect1x } from "../../lib/upgrade/detect.ts";
import { resolveProject } from "../../lib/workspace/project.ts";
import { fakeCtx } from "../support/ctx.ts";
import { tempDir, writeText } from "../support/temp.ts";

async function detectIn(root: string, env: Record<string, string> = {}, session?: string) {
  const ctx = fakeCtx({ cwd: root, env: { HOME: `${root}/.home`, ...env } });
  ctx.global.project = root;
  return detect1x(ctx, await resolveProject(ctx), session);
}

function prefs(extra: Record<string, unknown>): string {
  return JSON.stringify({ schema_version: "1.2.0", ...extra });
}

Deno.test("the decision follows autoUpgradePrompt", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/.peaks/preferences.json`;
  const cases: [Record<string, unknown>, string][] = [
    [{}, "ask"],
    [{ autoUpgradePrompt: "opt-in" }, "auto-run"],
    [{ autoUpgradePrompt: "skip-forever" }, "skip"],
    [{ autoUpgradePrompt: "nonsense" }, "ask"],
  ];
  for (const [extra, decision] of cases) {
    await writeText(path, prefs(extra));
    const found = await detectIn(dir.path);
    assertEquals(found.isOneX, true);
    assertEquals(found.decision, decision, JSON.stringify(extra));
  }
});

Deno.test("skip-this-session skips only in the session that recorded it", async () => {
  await using dir = await tempDir();
  await writeText(
    `${dir.path}/.peaks/preferences.json`,
    prefs({
      autoUpgradePrompt: "skip-this-session",
      autoUpgradePromptSessionId: "2026-11-29-session-aaaaaa",
    }),
  );
  assertEquals((await detectIn(dir.path, {}, "2026-11-29-session-aaaaaa")).decision, "skip");
  assertEquals(
    (await detectIn(dir.path, { PEAKS_SESSION_ID: "2026-11-29-session-aaaaaa" })).decision,
    "skip",
  );
  assertEquals((await detectIn(dir.path, {}, "2026-11-30-session-bbbbbb")).decision, "ask");
  assertEquals((await detectIn(dir.path)).decision, "ask", "no current session known");
});

Deno.test("without a workspace nothing is 1.x, even with a 1.x global config", async () => {
  await using dir = await tempDir();
  await writeText(`${dir.path}/.home/.peaks/config.json`, '{"version":"1.9.0"}');
  const found = await detectIn(dir.path);
  assertEquals(found.isOneX, false);
  assertEquals(found.workspaceExists, false);
  assertEquals(found.decision, "skip");
  assertEquals(found.configPath, `${dir.path}/.home/.peaks/config.json`);
});

Deno.test("a 2.x global config and 2.0.0 preferences are not signals", async () => {
  await using dir = await tempDir();
  await writeText(`${dir.path}/.home/.peaks/config.json`, '{"version":"2.0.1"}');
  await writeText(`${dir.path}/.peaks/preferences.json`, '{"schema_version":"2.0.0"}');
  await writeText(`${dir.path}/.peaks/2026-01-01-session-abcdef/x.md`, "old");
  const found = await detectIn(dir.path);
  assertEquals(found.isOneX, false, "layout signs count only when preferences are missing");
  assertEquals(found.signals, []);
});
