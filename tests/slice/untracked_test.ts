/**
 * Large untracked files and slice worktrees: the untracked files a wave would copy into every
 * slice's worktree are announced with their size, and a file over the limit
 * (PEAKS_SLICE_UNTRACKED_MAX_BYTES, 16 MiB by default) is not copied at all, named in the envelope.
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runPeaks } from "../support/cli.ts";
import { exists, tempDir } from "../support/temp.ts";
import { GIT_ENV, sliceRepo, writeSliceDag } from "../support/slices.ts";
import { recordPathOf } from "../support/subagent.ts";

const MiB = 1024 * 1024;

type Warning = { code: string; message: string; files?: { path: string; bytes: number }[] };

async function wave(root: string, env: Record<string, string>) {
  const sid = await sliceRepo(root, env);
  await Deno.writeFile(join(root, "big.bin"), new Uint8Array(3 * MiB));
  await Deno.writeFile(join(root, "huge.bin"), new Uint8Array(5 * MiB));
  await Deno.writeTextFile(join(root, "note.txt"), "small\n");
  const rel = await writeSliceDag(root, sid, [{ id: "a" }, { id: "b" }]);
  const sent = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      "--from-dag",
      rel,
      "--request-id",
      "r1",
      "--ide",
      "opencode",
      "--json",
    ],
    { cwd: root, env },
  );
  assertEquals(sent.code, 0, sent.stdout + sent.stderr);
  return sent;
}

Deno.test("untracked files copied into slices are announced with their size; one over the limit is not copied, named", async () => {
  await using dir = await tempDir("peaks-slices-");
  const env = { ...GIT_ENV, PEAKS_SLICE_UNTRACKED_MAX_BYTES: String(4 * MiB) };
  const sent = await wave(dir.path, env);
  const warnings = sent.json.warnings as Warning[];
  const skipped = warnings.find((w) => w.code === "SLICE_UNTRACKED_SKIPPED");
  if (!skipped) throw new Error(`no SLICE_UNTRACKED_SKIPPED: ${sent.stdout}`);
  assertEquals(skipped.files, [{ path: "huge.bin", bytes: 5 * MiB }]);
  assert(skipped.message.includes("PEAKS_SLICE_UNTRACKED_MAX_BYTES"), skipped.message);
  const copied = warnings.find((w) => w.code === "SLICE_UNTRACKED_COPIED");
  if (!copied) throw new Error(`no SLICE_UNTRACKED_COPIED: ${sent.stdout}`);
  assert(copied.message.includes("3.0 MiB"), copied.message);
  for (const slice of sent.json.data.slices) {
    const at = join(dir.path, slice.worktree);
    assertEquals((await Deno.stat(join(at, "big.bin"))).size, 3 * MiB);
    assertEquals(await Deno.readTextFile(join(at, "note.txt")), "small\n");
    assert(!(await exists(join(at, "huge.bin"))), "a file over the limit stays out");
  }
  // The main tree keeps it, untouched.
  assertEquals((await Deno.stat(join(dir.path, "huge.bin"))).size, 5 * MiB);
  // A slice that writes a file of that path conflicts at merge-back; the user's file stays.
  const [first] = sent.json.data.slices;
  await Deno.writeTextFile(join(dir.path, first.worktree, "huge.bin"), "the slice's own\n");
  const done = await runPeaks(
    [
      "sub-agent",
      "finalize",
      "--record",
      recordPathOf(dir.path, first.record),
      "--outcome",
      "done",
      "--json",
    ],
    { cwd: dir.path, env },
  );
  assertEquals(done.json.code, "SLICE_CONFLICT", done.stdout);
  assertEquals((await Deno.stat(join(dir.path, "huge.bin"))).size, 5 * MiB);
});

Deno.test("under the default limit nothing is skipped, and small untracked files say nothing", async () => {
  await using dir = await tempDir("peaks-slices-");
  const sent = await wave(dir.path, GIT_ENV);
  const codes = (sent.json.warnings as Warning[]).map((w) => w.code);
  assert(!codes.includes("SLICE_UNTRACKED_SKIPPED"), sent.stdout);
  assert(codes.includes("SLICE_UNTRACKED_COPIED"), sent.stdout);
  for (const slice of sent.json.data.slices) {
    assert(await exists(join(dir.path, slice.worktree, "huge.bin")));
  }
});
