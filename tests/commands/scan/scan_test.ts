import { z } from "../../../lib/infra/zod.ts";
import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { runActions } from "../../support/next_actions.ts";
import { exists, tempDir, writeText } from "../../support/temp.ts";
import { copyFixture, FIXTURE_NAMES } from "../../support/fixtures.ts";
import { EXPECTED } from "../../support/fixture_expectations.ts";
import { scanResultSchemas } from "../../../lib/state/scan_result.ts";

const { ScanResultSchema } = scanResultSchemas(z);

for (const name of FIXTURE_NAMES) {
  Deno.test(`scan archetype on ${name} writes the report and the result`, async () => {
    await using dir = await tempDir();
    const root = await copyFixture(name, dir.path);
    const result = await runPeaks(["scan", "archetype", "--project", root, "--json"], {
      cwd: root,
    });
    assertEquals(result.code, 0, result.stderr);
    const data = result.json.data;
    assertEquals(data.archetype, EXPECTED[name].archetype);
    assertEquals(data.frontendOnly, EXPECTED[name].frontendOnly);
    assertEquals(data.stack, EXPECTED[name].stack);
    assertEquals(data.truncated, false);
    assertEquals(data.written, [
      ".peaks/project-scan/project-scan.md",
      ".peaks/project-scan/project-scan.json",
    ]);

    const md = await Deno.readTextFile(`${root}/.peaks/project-scan/project-scan.md`);
    for (
      const heading of ["## Archetype", "## Project mode", "## Stack", "## Legacy constraints"]
    ) {
      assertMatch(md, new RegExp(`^${heading}$`, "m"));
    }
    assertMatch(md, new RegExp(`^archetype: ${EXPECTED[name].archetype}$`, "m"));
    assertMatch(md, new RegExp(`^frontendOnly: ${EXPECTED[name].frontendOnly}$`, "m"));
    const json = JSON.parse(
      await Deno.readTextFile(`${root}/.peaks/project-scan/project-scan.json`),
    );
    const parsed = ScanResultSchema.parse(json);
    assertEquals(parsed.archetype, EXPECTED[name].archetype);
    assertEquals(parsed.frontendOnly, EXPECTED[name].frontendOnly);
  });
}

Deno.test("a large tree is cut at --max-files and reported as truncated", async () => {
  await using dir = await tempDir();
  await writeText(`${dir.path}/package.json`, '{"dependencies":{"react":"^18.2.0"}}');
  for (let i = 0; i < 60; i++) await writeText(`${dir.path}/src/m${i}.tsx`, "export {}\n");
  const result = await runPeaks(
    ["scan", "archetype", "--max-files", "20", "--project", dir.path, "--json"],
    { cwd: dir.path },
  );
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.truncated, true);
  assertEquals(result.json.data.walk.files, 20);
  assertEquals(result.json.data.walk.truncatedBy, "files");
  assertEquals(result.json.warnings[0].code, "SCAN_PARTIAL");
  const md = await Deno.readTextFile(`${dir.path}/.peaks/project-scan/project-scan.md`);
  assertMatch(md, /^- truncated: true \(files limit reached\)$/m);
});

Deno.test("--dry-run reports without writing anything", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("greenfield-react-vite", dir.path);
  const result = await runPeaks(["scan", "archetype", "--dry-run", "--json"], { cwd: root });
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.written, []);
  assertEquals(await exists(`${root}/.peaks`), false);
});

Deno.test("scan refuses to write through a .peaks symlink that leaves the project", async () => {
  await using outside = await tempDir();
  await using dir = await tempDir();
  const root = await copyFixture("greenfield-react-vite", dir.path);
  await Deno.symlink(outside.path, `${root}/.peaks`);
  const result = await runPeaks(["scan", "archetype", "--project", root, "--json"], { cwd: root });
  assertEquals(result.code, 1);
  assertEquals(result.json.code, "PATH_OUTSIDE_PROJECT");
  assertEquals([...Deno.readDirSync(outside.path)], []);
});

Deno.test("the legacy scan's nextActions run: workspace, existing-system, standards preview", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("legacy-antd-umi", dir.path);
  const scan = await runPeaks(["scan", "archetype", "--project", root, "--json"], { cwd: root });
  assertEquals(scan.json.nextActions.length, 3);
  const results = await runActions(scan.json.nextActions, { cwd: root });
  for (const r of results) assertEquals(r.code, 0, r.stdout + r.stderr);
  const [, existing, standards] = results;
  assertEquals(existing.json.data.status, "created");
  assert(await exists(`${root}/${existing.json.data.path}`));
  assertEquals(standards.json.data.mode, "dry-run");
  assertEquals(standards.json.data.conventions.source, existing.json.data.path);
  // The standards preview proposes applying, and that runs too.
  const apply = await runActions(standards.json.nextActions, { cwd: root });
  assertEquals(apply[0].code, 0, apply[0].stderr);
  assert(await exists(`${root}/CLAUDE.md`));
});

Deno.test("scan existing-system needs a session, then keeps the skill's completed text", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("legacy-antd-umi", dir.path);
  const none = await runPeaks(["scan", "existing-system", "--project", root, "--json"], {
    cwd: root,
  });
  assertEquals(none.code, 1);
  assertEquals(none.json.code, "NO_ACTIVE_SESSION");
  await runActions(none.json.nextActions, { cwd: root });

  const first = await runPeaks(["scan", "existing-system", "--json"], { cwd: root });
  assertEquals(first.code, 0, first.stderr);
  assertEquals(first.json.data.status, "created");
  assert(first.json.data.toComplete.includes("Error handling"));
  const path = `${root}/${first.json.data.path}`;
  const text = await Deno.readTextFile(path);
  for (const heading of ["## Naming", "## Directory layout", "## Service layer", "## Hooks"]) {
    assertMatch(text, new RegExp(`^${heading}$`, "m"));
  }
  assertMatch(text, /^- TO COMPLETE: /m);
  const [standardsPreview] = await runActions(first.json.nextActions, { cwd: root });
  assertEquals(standardsPreview.code, 0, standardsPreview.stdout);
  assertEquals(standardsPreview.json.data.conventions.source, first.json.data.path);

  const completed = text.replace(
    /- TO COMPLETE: how failed requests[^\n]*/,
    "- Failed requests raise an antd notification in src/utils/request.ts.",
  );
  await Deno.writeTextFile(path, completed);
  const again = await runPeaks(["scan", "existing-system", "--json"], { cwd: root });
  assertEquals(again.json.data.status, "unchanged");
  assertEquals(await Deno.readTextFile(path), completed);

  const preview = await runPeaks(["scan", "existing-system", "--dry-run", "--json"], { cwd: root });
  assertEquals(preview.json.data.status, "unchanged");
  await Deno.writeTextFile(path, "# Our own notes\n");
  const handWritten = await runPeaks(["scan", "existing-system", "--json"], { cwd: root });
  assertEquals(handWritten.json.data.status, "review-only");
  assertEquals(await Deno.readTextFile(path), "# Our own notes\n");
});
