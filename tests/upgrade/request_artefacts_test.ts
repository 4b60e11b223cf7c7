import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import { exists, tempDir } from "../support/temp.ts";
import { workspace } from "../support/request_fixture.ts";

/**
 * A session made before artefacts were per request: one tech doc, design draft,
 * code review, swarm plan and member DAG for the whole session.
 */
Deno.test("upgrade moves session-wide artefacts to their request, content kept", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const ws = await workspace(dir.path);
  const files: Record<string, string> = {
    "sc/swarm-plan.json": '{"rid":"001-login","status":"planned"}\n',
    "sc/slice-dag.json": '{"rid":"001-login","nodes":[],"edges":[]}\n',
    "rd/tech-doc.md": "# Tech doc\n\nOne endpoint.\n",
    "ui/design-draft.md": "# Draft\n\nA card.\n",
    "rd/code-review.md": "# Review\n\n## Findings\n\nNone.\n",
  };
  for (const [path, text] of Object.entries(files)) await ws.write(path, text);
  const peaks = (...args: string[]) =>
    runPeaks(["upgrade", ...args, "--project", dir.path, "--json"], { cwd: dir.path, home });

  const detect = await peaks("--detect-1x");
  assertEquals(detect.code, 0, detect.stderr);
  const kinds = detect.json.data.signals.map((s: { kind: string }) => s.kind);
  assertEquals(kinds, ["session-artefacts"]);

  const run = await peaks("--to", "2.0", "--auto");
  assertEquals(run.code, 0, run.stderr);
  const step = run.json.data.steps.find((s: { step: string }) => s.step === "request-artefacts");
  assertEquals(step.status, "changed");
  assertEquals(step.details.length, 5);
  for (const detail of step.details) assertMatch(detail, /^moved .* to .* \(request 001-login\)$/);
  const session = `${dir.path}/.peaks/_runtime/${ws.sid}`;
  const moved: Record<string, string> = {
    "sc/swarm-plan.json": "sc/swarm-plan-001-login.json",
    "sc/slice-dag.json": "sc/slice-dag-001-login.json",
    "rd/tech-doc.md": "rd/tech-doc-001-login.md",
    "ui/design-draft.md": "ui/design-draft-001-login.md",
    "rd/code-review.md": "rd/code-review-001-login.md",
  };
  for (const [from, to] of Object.entries(moved)) {
    assertEquals(await exists(`${session}/${from}`), false, from);
    assertEquals(await Deno.readTextFile(`${session}/${to}`), files[from], to);
  }
  const again = await peaks("--detect-1x");
  assertEquals(again.json.data.signals, []);
});

Deno.test("upgrade keeps a session-wide file no plan names in the backup folder", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const ws = await workspace(dir.path);
  await ws.write("rd/tech-doc.md", "# Tech doc\n");
  const run = await runPeaks(
    ["upgrade", "--to", "2.0", "--auto", "--project", dir.path, "--json"],
    { cwd: dir.path, home },
  );
  assertEquals(run.code, 0, run.stderr);
  const step = run.json.data.steps.find((s: { step: string }) => s.step === "request-artefacts");
  assertMatch(step.details[0], /\(no swarm plan names its request\)$/);
  const [backup] = run.json.data.backups;
  assertEquals(backup, `.peaks/_runtime/${ws.sid}/rd/tech-doc.md`);
  assert(!(await exists(`${dir.path}/${backup}`)));
  assertEquals(run.json.data.backupDir !== null, true);
  const kept = `${dir.path}/${run.json.data.backupDir}/${backup}`;
  assertEquals(await Deno.readTextFile(kept), "# Tech doc\n");
});
