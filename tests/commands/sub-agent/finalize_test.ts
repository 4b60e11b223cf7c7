import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import {
  ago,
  initWorkspace,
  makeRecord,
  readJson,
  recordPathOf,
  writeBatchOnDisk,
} from "../../support/subagent.ts";
import { runNextAction } from "../../support/next_actions.ts";
import { join } from "../../../lib/infra/std.ts";

const CLAUDE = { CLAUDECODE: "1" };

async function git(cwd: string, ...args: string[]) {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    cwd,
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

async function dispatch(cwd: string, role: string, ...extra: string[]) {
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      role,
      "--request-id",
      "001-login",
      "--prompt",
      "work",
      ...extra,
      "--json",
    ],
    { cwd, env: CLAUDE },
  );
  assertEquals(result.code, 0, result.stderr);
  return { ...result.json.data, dispatchRecordPath: recordPathOf(cwd, result.json.data.record) };
}

const codes = (warnings: Array<{ code: string }>) => warnings.map((w) => w.code);

Deno.test("finalize reports UNAUTHORIZED_COMMIT naming the commit a sub-agent made", async () => {
  await using dir = await tempDir();
  await git(dir.path, "init", "-q", "-b", "main");
  await git(dir.path, "commit", "-q", "--allow-empty", "-m", "base");
  await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatch(dir.path, "rd");
  await writeText(join(dir.path, "src.ts"), "export const x = 1;\n");
  await git(dir.path, "add", "src.ts");
  await git(dir.path, "commit", "-q", "-m", "sneaky commit by the sub-agent");
  const sha = await git(dir.path, "rev-parse", "HEAD");

  const result = await runPeaks(
    ["sub-agent", "finalize", "--record", dispatchRecordPath, "--outcome", "done", "--json"],
    { cwd: dir.path },
  );
  assertEquals(result.code, 0, result.stderr);
  const warning = result.json.warnings.find((w: { code: string }) =>
    w.code === "UNAUTHORIZED_COMMIT"
  );
  assert(warning, JSON.stringify(result.json.warnings));
  assertEquals(warning.commits, [{ sha, subject: "sneaky commit by the sub-agent" }]);
  assertEquals(result.json.data.audit.unauthorizedCommits, 1);
  const record = await readJson(join(dir.path, dispatchRecordPath));
  assertEquals([record.status, record.outcome, record.disposed], ["done", "done", true]);
});

Deno.test("no commit since dispatch: a clean audit", async () => {
  await using dir = await tempDir();
  await git(dir.path, "init", "-q", "-b", "main");
  await git(dir.path, "commit", "-q", "--allow-empty", "-m", "base");
  await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatch(dir.path, "rd");
  await writeText(join(dir.path, "src.ts"), "uncommitted diff\n");
  const result = await runPeaks(
    ["sub-agent", "finalize", "--record", dispatchRecordPath, "--outcome", "done", "--json"],
    { cwd: dir.path },
  );
  assertEquals(result.json.warnings, []);
  assert(!("unauthorizedCommits" in result.json.data.audit));
  // The change left for review, the new file included (git diff alone would not show it).
  assertEquals(result.json.data.audit.changes, ["?? src.ts"]);
});

Deno.test("the working-tree list shows the sub-agent's change, and counts peaks' own files on one line", async () => {
  await using dir = await tempDir();
  await git(dir.path, "init", "-q", "-b", "main");
  await git(dir.path, "commit", "-q", "--allow-empty", "-m", "base");
  await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatch(dir.path, "rd");
  await writeText(join(dir.path, "src.ts"), "the real change\n");
  for (
    const own of [
      ".claude/skills/peaks-code/SKILL.md",
      ".agents/skills/.peaks-skills-manifest.json",
      ".claude/settings.local.json",
      "CLAUDE.md",
      "AGENTS.md",
    ]
  ) await writeText(join(dir.path, own), "peaks wrote this\n");
  await writeText(join(dir.path, ".claude/skills/mine/SKILL.md"), "the user's own skill\n");
  const args = ["sub-agent", "finalize", "--record", dispatchRecordPath, "--outcome", "done"];
  const result = await runPeaks([...args, "--json"], { cwd: dir.path });
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.audit.changes, ["?? .claude/skills/mine/SKILL.md", "?? src.ts"]);
  assertEquals(result.json.data.audit.peaksFiles, 5);
  const human = await runPeaks(args, { cwd: dir.path });
  assertMatch(
    human.stdout,
    /working tree:\n {2}\?\? \.claude\/skills\/mine\/SKILL\.md\n {2}\?\? src\.ts\n {2}5 file\(s\) peaks wrote/,
  );
});

Deno.test("an artefact edited after registration is ARTIFACT_CHANGED; a deleted one ARTIFACT_MISSING", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatch(dir.path, "ui");
  const kept = `.peaks/_sub_agents/${sid}/artifacts/001-login-ui-001.md`;
  const gone = `.peaks/_runtime/${sid}/ui/design-draft.md`;
  await writeText(join(dir.path, kept), "v1");
  await writeText(join(dir.path, gone), "draft");
  for (const path of [kept, gone]) {
    const reg = await runPeaks(
      ["sub-agent", "artifact", "--record", dispatchRecordPath, "--path", path, "--json"],
      { cwd: dir.path },
    );
    assertEquals(reg.code, 0, reg.stderr);
  }
  await Deno.writeTextFile(join(dir.path, kept), "v2");
  await Deno.remove(join(dir.path, gone));
  const result = await runPeaks(
    ["sub-agent", "finalize", "--record", dispatchRecordPath, "--outcome", "done", "--json"],
    { cwd: dir.path },
  );
  assertEquals(codes(result.json.warnings).sort(), ["ARTIFACT_CHANGED", "ARTIFACT_MISSING"]);
  assertEquals(result.json.data.audit.artifactsChanged, 1);
  assertEquals(result.json.data.audit.artifactsMissing, 1);
  const changed = result.json.warnings.find((w: { code: string }) => w.code === "ARTIFACT_CHANGED");
  assertEquals(changed.path, kept);
});

Deno.test("--result-json is validated and stored; a terminal record keeps its status and is re-audited", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatch(dir.path, "rd");
  const bad = await runPeaks(
    [
      "sub-agent",
      "finalize",
      "--record",
      dispatchRecordPath,
      "--outcome",
      "done",
      "--result-json",
      '{"role":"rd"}',
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals([bad.code, bad.json.code], [2, "INVALID_RESULT_JSON"]);
  const beat = await runPeaks(
    [
      "sub-agent",
      "heartbeat",
      "--record",
      dispatchRecordPath,
      "--status",
      "done",
      "--progress",
      "100",
    ],
    { cwd: dir.path },
  );
  assertEquals(beat.code, 0, beat.stderr);
  const result = {
    role: "rd",
    rid: "001-login",
    status: "blocked",
    artefacts: [],
    warnings: [],
    blockedReason: "blocked-by-orchestrator-policy",
  };
  const fin = await runPeaks(
    [
      "sub-agent",
      "finalize",
      "--record",
      dispatchRecordPath,
      "--outcome",
      "failed",
      "--error",
      "needs a commit",
      "--result-json",
      JSON.stringify(result),
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals(fin.code, 0, fin.stderr);
  assertEquals(fin.json.data.finalized[0].status, "done");
  assertEquals(codes(fin.json.warnings), ["OUTCOME_KEPT"]);
  const record = await readJson(join(dir.path, dispatchRecordPath));
  assertEquals(record.status, "done");
  assertEquals(record.result?.blockedReason, "blocked-by-orchestrator-policy");
  assertEquals(record.error, "needs a commit");
  assertEquals(record.disposed, true);
});

Deno.test("a result without the lists it may leave out is stored with them filled in", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatch(dir.path, "rd");
  // The shape checks a complete result; one missing artefacts and warnings goes to the schema.
  const short = { role: "rd", rid: "001-login", status: "ok", extra: { kept: true } };
  const fin = await runPeaks(
    [
      "sub-agent",
      "finalize",
      "--record",
      dispatchRecordPath,
      "--outcome",
      "done",
      "--result-json",
      JSON.stringify(short),
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals(fin.code, 0, fin.stderr);
  const record = await readJson(join(dir.path, dispatchRecordPath));
  assertEquals(record.result, { ...short, artefacts: [], warnings: [] });
});

Deno.test("siblings sharing a request id are AMBIGUOUS_TARGET; the offered commands work", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  await dispatch(dir.path, "rd-planning", "--batch-id", "s1");
  await dispatch(dir.path, "qa-test-cases", "--batch-id", "s1");
  const result = await runPeaks(
    ["sub-agent", "finalize", "--request-id", "001-login", "--outcome", "done", "--json"],
    { cwd: dir.path },
  );
  assertEquals([result.code, result.json.code], [2, "AMBIGUOUS_TARGET"]);
  assertEquals(result.json.data.candidates.length, 2);
  assertEquals(result.json.nextActions.length, 2);
  for (const action of result.json.nextActions) {
    const next = await runNextAction(action, { cwd: dir.path });
    assertEquals(next.code, 0, next.stderr);
    assertEquals(next.json.data.finalized[0].status, "done");
  }
  const byRole = await runPeaks(
    [
      "sub-agent",
      "finalize",
      "--request-id",
      "001-login",
      "--role",
      "qa-test-cases",
      "--outcome",
      "done",
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals(byRole.code, 0);
  assertEquals(byRole.json.data.finalized.map((f: { role: string }) => f.role), ["qa-test-cases"]);
});

Deno.test("--all-stale closes stale and never-started records only", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const [stale, silent, alive] = await writeBatchOnDisk(dir.path, sid, "b1", [
    makeRecord({
      sessionId: sid,
      role: "rd",
      batchId: "b1",
      n: 1,
      createdAt: ago(900_000),
      beats: [[ago(400_000), 10]],
    }),
    makeRecord({ sessionId: sid, role: "qa", batchId: "b1", n: 2, createdAt: ago(120_000) }),
    makeRecord({ sessionId: sid, role: "ui", batchId: "b1", n: 3, beats: [[ago(2_000), 10]] }),
  ]);
  const result = await runPeaks(
    [
      "sub-agent",
      "finalize",
      "--all-stale",
      "--outcome",
      "cancelled",
      "--error",
      "user stopped them",
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.json.data.finalized.map((f: { role: string }) => f.role).sort(), [
    "qa",
    "rd",
  ]);
  assertEquals((await readJson(stale)).status, "cancelled");
  assertEquals((await readJson(silent)).error, "user stopped them");
  assertEquals((await readJson(alive)).status, "running");
});

Deno.test("finalize needs exactly one target", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const none = await runPeaks(["sub-agent", "finalize", "--outcome", "done", "--json"], {
    cwd: dir.path,
  });
  assertEquals([none.code, none.json.code], [2, "MISSING_FLAG"]);
  const two = await runPeaks(
    ["sub-agent", "finalize", "--batch", "b", "--all-stale", "--outcome", "done", "--json"],
    { cwd: dir.path },
  );
  assertEquals([two.code, two.json.code], [2, "CONFLICTING_FLAGS"]);
  const unknown = await runPeaks(
    ["sub-agent", "finalize", "--batch", "nope", "--outcome", "done", "--json"],
    { cwd: dir.path },
  );
  assertEquals([unknown.code, unknown.json.code], [1, "BATCH_NOT_FOUND"]);
  assertMatch(unknown.json.nextActions[0], /^peaks sub-agent list /);
  assertEquals((await runNextAction(unknown.json.nextActions[0], { cwd: dir.path })).code, 0);
});

Deno.test("a declared artefact is due only from a sub-agent that ended done: a blocked one warns nothing", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const draft = `.peaks/_runtime/${sid}/ui/design-draft-001-login.md`;
  const { dispatchRecordPath } = await dispatch(dir.path, "ui", "--write-artifact", draft);
  const failed = await runPeaks(
    [
      "sub-agent",
      "finalize",
      "--record",
      dispatchRecordPath,
      "--outcome",
      "failed",
      "--error",
      "login-required",
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals(failed.code, 0, failed.stdout);
  assertEquals(codes(failed.json.warnings), []);

  const other = await dispatch(dir.path, "ui", "--write-artifact", draft);
  const done = await runPeaks(
    ["sub-agent", "finalize", "--record", other.dispatchRecordPath, "--outcome", "done", "--json"],
    { cwd: dir.path },
  );
  assertEquals(codes(done.json.warnings), ["ARTIFACT_MISSING"]);
});
