import { assertEquals, assertMatch } from "@std/assert";
import { projectLayout } from "../../lib/workspace/paths.ts";
import { STANDARDS_BEGIN, STANDARDS_END } from "../../lib/standards/block.ts";
import { REQUEST_TYPES, type RequestRole, type RequestType } from "../../lib/request/file.ts";
import { checkRequirements } from "../../lib/request/requirements.ts";
import { requirementsFor } from "../../lib/request/prerequisites.ts";
import { tempDir, writeText } from "../support/temp.ts";

const SID = "2026-01-01-session-abc123";

function needed(root: string, role: RequestRole, type: RequestType, to: string): string[] {
  const layout = projectLayout(root);
  return requirementsFor(layout, SID, role, type, "r1", to).map((r) =>
    r.path.slice(root.length + 1)
  );
}

Deno.test("the prerequisite table per role, state and type", () => {
  const s = `.peaks/_runtime/${SID}`;
  const root = "/p";
  for (const type of REQUEST_TYPES) {
    assertEquals(needed(root, "prd", type, "confirmed-by-user"), [`${s}/prd/requests/r1.md`]);
    assertEquals(needed(root, "ui", type, "direction-locked"), [`${s}/ui/design-draft-r1.md`]);
    assertEquals(needed(root, "txt", type, "finalized"), [`${s}/txt/handoff-r1.md`, "CLAUDE.md"]);
    assertEquals(needed(root, "sc", type, "impact-recorded"), [`${s}/sc/r1-impact.md`]);
    assertEquals(needed(root, "rd", type, "implemented"), []);
    assertEquals(needed(root, "prd", type, "handed-off"), []);
  }
  assertEquals(needed(root, "rd", "feature", "spec-locked"), [`${s}/rd/tech-doc-r1.md`]);
  assertEquals(needed(root, "rd", "refactor", "spec-locked"), [`${s}/rd/tech-doc-r1.md`]);
  assertEquals(needed(root, "rd", "bugfix", "spec-locked"), [`${s}/rd/bug-analysis-r1.md`]);
  for (const type of ["config", "docs", "chore"] as const) {
    assertEquals(needed(root, "rd", type, "spec-locked"), []);
    assertEquals(needed(root, "qa", type, "running"), []);
  }
  for (const type of ["feature", "bugfix", "refactor"] as const) {
    assertEquals(needed(root, "qa", type, "running"), [`${s}/qa/test-cases/r1.md`]);
  }
  assertEquals(needed(root, "rd", "docs", "qa-handoff"), []);
  assertEquals(needed(root, "rd", "chore", "qa-handoff"), [`${s}/rd/code-review-r1.md`]);
  assertEquals(needed(root, "qa", "docs", "verdict-issued"), []);
  assertEquals(needed(root, "qa", "config", "verdict-issued"), [`${s}/qa/test-reports/r1.md`]);
});

Deno.test("a missing file is named with every heading it must contain", async () => {
  await using dir = await tempDir();
  const layout = projectLayout(dir.path);
  const reqs = requirementsFor(layout, SID, "rd", "bugfix", "r1", "spec-locked");
  const problems = await checkRequirements(dir.path, reqs);
  assertEquals(problems.length, 1);
  assertEquals(problems[0].kind, "missing");
  assertEquals(problems[0].headings, ["## Root cause", "## Fix approach"]);
  assertMatch(
    problems[0].message,
    /rd\/bug-analysis-r1\.md is missing\. It must contain the lines "## Root cause" and "## Fix approach"\./,
  );
});

Deno.test("a heading must match exactly, and a near miss is pointed out", async () => {
  await using dir = await tempDir();
  const layout = projectLayout(dir.path);
  await writeText(layout.qaTestCases(SID, "r1"), "# Cases\n\n## Test Cases\n- one\n");
  const reqs = requirementsFor(layout, SID, "qa", "feature", "r1", "running");
  const [problem] = await checkRequirements(dir.path, reqs);
  assertEquals(problem.kind, "missing-heading");
  assertEquals(problem.headings, ["## Test cases"]);
  assertMatch(
    problem.message,
    /must contain the line "## Test cases"\. Line 3 has "## Test Cases"/,
  );
  await writeText(layout.qaTestCases(SID, "r1"), "# Cases\n\n## Test cases  \n- one\n");
  assertEquals(await checkRequirements(dir.path, reqs), []);
});

Deno.test("the UI draft must be free of placeholders", async () => {
  await using dir = await tempDir();
  const layout = projectLayout(dir.path);
  await writeText(layout.uiDesignDraft(SID, "r1"), "# Draft\n\n<layout idea>\n");
  const reqs = requirementsFor(layout, SID, "ui", "feature", "r1", "direction-locked");
  const [problem] = await checkRequirements(dir.path, reqs);
  assertEquals(problem.kind, "placeholders");
  assertMatch(problem.message, /1 placeholder\(s\), first on line 3 \(<layout idea>\)/);
});

Deno.test("Gate G: CLAUDE.md must have a managed block that names the stack", async () => {
  await using dir = await tempDir();
  const layout = projectLayout(dir.path);
  await writeText(layout.txtHandoff(SID, "r1"), "# Handoff\n");
  const reqs = requirementsFor(layout, SID, "txt", "feature", "r1", "finalized");
  const kinds = async () => (await checkRequirements(dir.path, reqs)).map((p) => p.kind);
  assertEquals(await kinds(), ["missing"]);
  await writeText(layout.claudeMd, "# My notes\n");
  assertEquals(await kinds(), ["standards-block-missing"]);
  await writeText(
    layout.claudeMd,
    `${STANDARDS_BEGIN}\n## Stack\n- language: unknown\n${STANDARDS_END}\n`,
  );
  assertEquals(await kinds(), ["standards-no-stack"]);
  await writeText(
    layout.claudeMd,
    `${STANDARDS_BEGIN}\n## Stack\n- TypeScript + React 18\n${STANDARDS_END}\n`,
  );
  assertEquals(await kinds(), []);
});
