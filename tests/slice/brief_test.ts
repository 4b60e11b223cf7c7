/**
 * A slice's brief, followed as written by real processes: two RD slices of one level sent out by
 * `--from-dag` (peaks makes their worktrees), each reading the files its brief names from its
 * worktree, posting on the shared channel at the same time, returning the JSON its brief shows;
 * then finalize merges them and audits what they returned, and git shows the merged files.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { isAbsolute, join, resolve } from "../../lib/infra/std.ts";
import { baseEnv, runPeaks, type RunResult } from "../support/cli.ts";
import { tempDir, writeText } from "../support/temp.ts";
import { recordPathOf } from "../support/subagent.ts";
import { shellWords } from "../support/next_actions.ts";
import { prdText } from "../support/swarm.ts";
import { git, GIT_ENV, sliceRepo, writeSliceDag } from "../support/slices.ts";

interface World {
  root: string;
  sid: string;
  env: Record<string, string>;
}

interface Slice {
  node: string;
  record: string;
  worktree: string;
  prompt: string;
}

function peaks(w: World, args: string[]): Promise<RunResult> {
  return runPeaks([...args, "--json"], { cwd: w.root, env: w.env });
}

/** A repository with request r1's PRD and tech doc, a swarm without UI, and a stray UI draft. */
async function world(root: string): Promise<World> {
  const sid = await sliceRepo(root);
  const env = { ...(await baseEnv({ cwd: root })), ...GIT_ENV };
  const rt = `.peaks/_runtime/${sid}`;
  await writeText(
    join(root, rt, "prd/requests/r1.md"),
    prdText("r1", "feature", "handed-off", "x"),
  );
  await writeText(join(root, rt, "rd/tech-doc-r1.md"), "# r1\n\nthe plan\n");
  await writeText(join(root, rt, "ui/design-draft-r1.md"), "# not this request's swarm\n");
  await writeText(
    join(root, rt, "sc/swarm-plan-r1.json"),
    JSON.stringify({ rid: "r1", subAgents: ["rd-planning", "qa-test-cases"] }),
  );
  return { root, sid, env };
}

/** Sends out slices a and b (both role rd, one level) and reads each one's record. */
async function sendSlices(w: World): Promise<Slice[]> {
  const dag = await writeSliceDag(w.root, w.sid, [{ id: "a", role: "rd" }, {
    id: "b",
    role: "rd",
  }]);
  const sent = await peaks(w, [
    "sub-agent",
    "dispatch",
    "--from-dag",
    dag,
    "--batch-id",
    "b1",
    "--request-id",
    "r1",
    "--ide",
    "opencode",
  ]);
  assertEquals(sent.code, 0, sent.stdout + sent.stderr);
  return await Promise.all(
    sent.json.data.slices.map(async (s: { node: string; record: string }) => {
      const record = join(w.root, recordPathOf(w.root, s.record));
      const parsed = JSON.parse(await Deno.readTextFile(record));
      return { node: s.node, record, worktree: parsed.worktree.projectDir, prompt: parsed.prompt };
    }),
  );
}

/** The brief's command that starts with `start` and contains each of `having`. */
function commandIn(prompt: string, start: string, having: string[] = []): string {
  const line = prompt.split("\n").map((l) => l.replace(/^\s*(\d+\.\s.*?:\s)?/, ""))
    .find((l) => l.startsWith(start) && having.every((h) => l.includes(h)));
  assert(line, `the brief has no ${start} ${having.join(" ")}`);
  return line!;
}

/** Runs a `peaks …` line of a brief with its placeholders filled, from the slice's worktree. */
function runLine(w: World, slice: Slice, line: string, values: Record<string, string> = {}) {
  const filled = line.replace(/<([^<>]+)>/g, (whole, name) => values[name] ?? whole);
  const [, ...args] = shellWords(filled);
  return runPeaks([...args, "--json"], { cwd: slice.worktree, env: w.env });
}

/** The return JSON the brief shows, filled in as a slice would. */
function returnJson(slice: Slice, fields: Record<string, unknown>): string {
  const line = slice.prompt.split("\n").find((l) => l.trim().startsWith('{"role":'));
  assert(line, "the brief shows no return JSON");
  return JSON.stringify({ ...JSON.parse(line!.trim()), diffSummary: "its file", ...fields });
}

Deno.test("a slice's brief names files that exist from its worktree, and one instruction on the code review", async () => {
  await using dir = await tempDir("peaks-slice-brief-");
  const w = await world(dir.path);
  const slices = await sendSlices(w);
  assertEquals(slices.length, 2);
  for (const slice of slices) {
    const { prompt } = slice;
    const read = /## Read first[^\n]*\n((?:- .*\n)+)/.exec(prompt)?.[1].trim().split("\n")
      .map((l) => l.slice(2));
    assert(read, prompt);
    // Each file to read exists, seen from where the slice starts.
    for (const path of read!) {
      const info = await Deno.stat(resolve(slice.worktree, path));
      assert(info.isFile, path);
    }
    assert(read!.some((p) => p.endsWith("rd/tech-doc-r1.md")), read!.join());
    assert(read!.some((p) => p.endsWith("prd/requests/r1.md")), read!.join());
    // UI was not in this request's swarm: its draft is not RD's to read.
    assert(!prompt.includes("design-draft"), "a UI draft outside the swarm");
    // peaks' own paths are absolute: relative ones would name nothing in the worktree.
    for (const label of ["Dispatch record", "Project scan", "Private marker file"]) {
      const value = new RegExp(`^- ${label}: (\\S+)`, "m").exec(prompt)?.[1];
      assert(value && isAbsolute(value), `${label}: ${value}`);
    }
    // One instruction on the code review, and it is not to write one.
    assertMatch(prompt, /Write no code review/);
    assert(!/code-review/.test(prompt), "a slice is told to write the code review");
    assert(!/Skip the code review/.test(prompt));
  }
  // Each slice has its own marker file.
  const markers = slices.map((s) => /^- Private marker file: (\S+)/m.exec(s.prompt)![1]);
  assertEquals(new Set(markers).size, 2, markers.join());
});

Deno.test("parallel slices post their own completion keys: nothing is overwritten on the channel", async () => {
  await using dir = await tempDir("peaks-slice-brief-");
  const w = await world(dir.path);
  const slices = await sendSlices(w);
  const posted = await Promise.all(
    slices.map((slice) =>
      runLine(w, slice, commandIn(slice.prompt, "peaks sub-agent share", [".completed"]), {
        "path of each artefact you registered": `notes-${slice.node}.md`,
      })
    ),
  );
  for (const result of posted) {
    assertEquals(result.code, 0, result.stdout + result.stderr);
    assertEquals(result.json.warnings, [], result.stdout);
  }
  const read = await runLine(
    w,
    slices[0],
    commandIn(slices[0].prompt, "peaks sub-agent shared-read"),
  );
  const keys = read.json.data.entries.map((e: { key: string }) => e.key).sort();
  assertEquals(keys, ["rd.a.completed", "rd.b.completed"]);
});

Deno.test("finalize audits a slice's files after its merge: no ARTIFACT_MISSING, and git diff shows what was merged", async () => {
  await using dir = await tempDir("peaks-slice-brief-");
  const w = await world(dir.path);
  const slices = await sendSlices(w);
  const byNode = Object.fromEntries(slices.map((s) => [s.node, s]));
  for (const slice of slices) {
    await writeText(join(slice.worktree, "src", `rd-${slice.node}.txt`), `from ${slice.node}\n`);
    const done = await runLine(
      w,
      slice,
      commandIn(slice.prompt, "peaks sub-agent heartbeat", ["--status done"]),
    );
    assertEquals(done.code, 0, done.stdout);
  }
  // The slices return their own product file among the artefacts (as the old contract said).
  const finalize = (slice: Slice) =>
    peaks(w, [
      "sub-agent",
      "finalize",
      "--record",
      slice.record,
      "--outcome",
      "done",
      "--result-json",
      returnJson(slice, {
        artefacts: [`src/rd-${slice.node}.txt`],
        worktree: slice.worktree,
      }),
    ]);
  // b waits for a (DAG order): its file is still in its worktree, where the audit finds it.
  const b = await finalize(byNode.b);
  assertEquals(b.code, 0, b.stdout);
  assertEquals(b.json.data.slices.map((s: { action: string }) => s.action), ["waiting", "waiting"]);
  assertEquals(b.json.warnings.filter((x: { code: string }) => x.code === "ARTIFACT_MISSING"), []);
  const a = await finalize(byNode.a);
  assertEquals(a.code, 0, a.stdout);
  assertEquals(a.json.data.slices.map((s: { action: string }) => s.action), ["merged", "merged"]);
  assertEquals(a.json.warnings.filter((x: { code: string }) => x.code === "ARTIFACT_MISSING"), []);
  assertEquals(a.json.data.audit.artifactsMissing, undefined);

  // Merged files are intent-to-add: git diff shows them, nothing is staged.
  assertEquals(
    (await git(w.root, "diff", "--name-only")).trim().split("\n"),
    ["src/rd-a.txt", "src/rd-b.txt"],
  );
  assertEquals(await git(w.root, "diff", "--cached", "--name-only"), "");
  // A repair round's edit of a merged file is in git diff.
  await writeText(join(w.root, "src", "rd-a.txt"), "repaired\n");
  assertMatch(await git(w.root, "diff", "--", "src/rd-a.txt"), /\+repaired/);
});
