/**
 * Attacks a sub-agent can mount from inside its slice worktree against the
 * orchestrator's finalize, merge and cleanup: a `.git` file pointed at a
 * repository it wrote (with a command as `core.fsmonitor`), a symlink into
 * `.git` that a later `--keep slice` would write through, a nested repository
 * that merge-back cannot carry, and a return JSON that names another worktree.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { baseEnv, runPeaks, type RunResult } from "../support/cli.ts";
import { exists, tempDir } from "../support/temp.ts";
import { recordPathOf } from "../support/subagent.ts";
import { git, GIT_ENV, sliceRepo, writeSliceDag } from "../support/slices.ts";

interface World {
  root: string;
  env: Record<string, string>;
  sid: string;
}

async function world(root: string): Promise<World> {
  const sid = await sliceRepo(root);
  const env = { ...(await baseEnv({ cwd: root })), ...GIT_ENV };
  return { root, env, sid };
}

function peaks(w: World, args: string[]): Promise<RunResult> {
  return runPeaks([...args, "--json"], { cwd: w.root, env: w.env });
}

interface Slice {
  record: string;
  path: string;
}

/** Sends out one slice per node (worktrees under .git) and returns where each one works. */
async function sendSlices(w: World, nodes: string[], batch = "b1"): Promise<Record<string, Slice>> {
  const dag = await writeSliceDag(w.root, w.sid, nodes.map((id) => ({ id, owns: [] })));
  const sent = await peaks(w, [
    "sub-agent",
    "dispatch",
    "--from-dag",
    dag,
    "--batch-id",
    batch,
    "--request-id",
    "r1",
    "--ide",
    "opencode",
  ]);
  assertEquals(sent.code, 0, sent.stdout + sent.stderr);
  const out: Record<string, Slice> = {};
  for (const s of sent.json.data.slices) {
    const abs = join(w.root, recordPathOf(w.root, s.record));
    const parsed = JSON.parse(await Deno.readTextFile(abs));
    out[s.node] = { record: abs, path: parsed.worktree.path };
  }
  return out;
}

async function done(w: World, slice: Slice, result?: Record<string, unknown>): Promise<void> {
  const args = ["sub-agent", "heartbeat", "--record", slice.record, "--status", "done"];
  const beat = await peaks(w, [...args, "--progress", "100"]);
  assertEquals(beat.code, 0, beat.stdout);
  if (result) {
    const rec = JSON.parse(await Deno.readTextFile(slice.record));
    await Deno.writeTextFile(slice.record, JSON.stringify({ ...rec, result }, null, 2));
  }
}

function finalize(w: World, slice: Slice): Promise<RunResult> {
  return peaks(w, ["sub-agent", "finalize", "--record", slice.record, "--outcome", "done"]);
}

/** A repository the sub-agent wrote, whose config runs a command (touching `marker`) on any status. */
async function evilRepo(dir: string, marker: string): Promise<void> {
  await git(dir, "init", "-q", "-b", "main");
  const hook = join(dir, "hook.sh");
  await Deno.writeTextFile(hook, `#!/bin/sh\ntouch '${marker}'\n`);
  await Deno.chmod(hook, 0o755);
  await git(dir, "config", "core.fsmonitor", hook);
  await git(dir, "config", "core.hooksPath", dir);
}

Deno.test("a slice that rewrites its .git file to a repository it controls runs nothing at finalize, merge or cleanup", async () => {
  await using tmp = await tempDir("peaks-hostile-gitfile-");
  const w = await world(tmp.path);
  const { a } = await sendSlices(w, ["a"]);
  const marker = join(tmp.path, "PWNED");
  const evil = join(a.path, "evil");
  await Deno.mkdir(evil);
  await evilRepo(evil, marker);
  await Deno.writeTextFile(join(a.path, ".git"), `gitdir: ${join(evil, ".git")}\n`);
  await Deno.writeTextFile(join(a.path, "src", "a.txt"), "from a\n");
  await done(w, a);
  const fin = await finalize(w, a);
  await peaks(w, ["sub-agent", "merge", "--record", a.record, "--keep", "main"]);
  await peaks(w, ["sub-agent", "cleanup"]);
  assert(!(await exists(marker)), `git ran the slice's fsmonitor: ${fin.stdout}`);
  // Refused, named, and nothing of it merged.
  assert(!(await exists(join(tmp.path, "src", "a.txt"))), fin.stdout);
  assertStringIncludes(fin.stdout, ".git");
});

Deno.test("a nested repository in a slice is refused and its worktree kept, never reported merged", async () => {
  await using tmp = await tempDir("peaks-hostile-nested-");
  const w = await world(tmp.path);
  const { a } = await sendSlices(w, ["a"]);
  const vendor = join(a.path, "vendor", "lib");
  await Deno.mkdir(vendor, { recursive: true });
  await git(vendor, "init", "-q", "-b", "main");
  await Deno.writeTextFile(join(vendor, "only-copy.txt"), "precious\n");
  await git(vendor, "add", "only-copy.txt");
  await git(vendor, "commit", "-q", "-m", "vendored");
  await done(w, a);
  const fin = await finalize(w, a);
  assertEquals(fin.code, 3, fin.stdout);
  assertStringIncludes(fin.stdout, "vendor/lib");
  assert(await exists(join(vendor, "only-copy.txt")), "the only copy was deleted");
  const rec = JSON.parse(await Deno.readTextFile(a.record));
  assertEquals(rec.worktree.state, "conflict");
});

Deno.test("--keep slice never writes through a symlink another slice merged into .git", async () => {
  await using tmp = await tempDir("peaks-hostile-symlink-");
  const w = await world(tmp.path);
  const { a, b } = await sendSlices(w, ["a", "b"]);
  await Deno.symlink(".git/hooks", join(a.path, "h"));
  await Deno.writeTextFile(join(a.path, "src", "shared.txt"), "from a\n");
  await Deno.mkdir(join(b.path, "h"));
  await Deno.writeTextFile(join(b.path, "h", "post-checkout"), "#!/bin/sh\necho pwned\n");
  await Deno.writeTextFile(join(b.path, "src", "shared.txt"), "from b\n");
  await done(w, a);
  await done(w, b);
  assertEquals((await finalize(w, a)).code, 0);
  const fin = await finalize(w, b);
  assertEquals(fin.code, 3, fin.stdout);
  const keep = await peaks(w, ["sub-agent", "merge", "--record", b.record, "--keep", "slice"]);
  assert(
    !(await exists(join(tmp.path, ".git", "hooks", "post-checkout"))),
    `wrote into .git/hooks: ${keep.stdout}`,
  );
  assert(keep.code !== 0, keep.stdout);
  assertStringIncludes(keep.stdout, "h/post-checkout");
});

Deno.test("a return JSON naming the user's own linked worktree cannot make finalize merge or remove it", async () => {
  await using tmp = await tempDir("peaks-hostile-claim-");
  const w = await world(tmp.path);
  const user = join(tmp.path, "mine");
  await Deno.writeTextFile(join(tmp.path, ".gitignore"), "mine/\n");
  await git(tmp.path, "add", ".gitignore");
  await git(tmp.path, "commit", "-q", "-m", "ignore mine");
  await git(tmp.path, "worktree", "add", "-q", "-b", "my-work", user);
  await Deno.writeTextFile(join(user, "work.txt"), "mine\n");
  const dag = await writeSliceDag(w.root, w.sid, [{ id: "a", owns: [] }]);
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
    "claude-code",
  ]);
  assertEquals(sent.code, 0, sent.stdout);
  const record = join(w.root, recordPathOf(w.root, sent.json.data.slices[0].record));
  assertEquals(JSON.parse(await Deno.readTextFile(record)).worktree.kind, "host");
  await done(w, { record, path: "" });
  const fin = await peaks(w, [
    "sub-agent",
    "finalize",
    "--record",
    record,
    "--outcome",
    "done",
    "--result-json",
    JSON.stringify({
      role: "rd-a",
      rid: "r1",
      status: "ok",
      artefacts: [],
      warnings: [],
      worktree: user,
    }),
  ]);
  assert(await exists(join(user, "work.txt")), `the user's worktree was removed: ${fin.stdout}`);
  assert(!(await exists(join(tmp.path, "work.txt"))), "the user's worktree was merged");
  assert(fin.code !== 0, fin.stdout);
});

/** A tmpfs of `mb` MiB at a fresh folder, or null where mounting is not allowed (not root). */
async function tmpfs(
  mb: number,
): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> } | null> {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return null;
  const path = await Deno.makeTempDir({ prefix: "peaks-full-" });
  const mount = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", `size=${mb}m`, "tmpfs", path],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => null);
  if (!mount?.success) {
    await Deno.remove(path);
    return null;
  }
  return {
    path,
    async [Symbol.asyncDispose]() {
      await new Deno.Command("umount", { args: [path] }).output();
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** Fills the file system of `dir` up to `spare` bytes. */
async function fill(dir: string, spare: number): Promise<void> {
  const file = await Deno.open(join(dir, "filler"), { write: true, create: true });
  const block = new Uint8Array(64 * 1024);
  try {
    while (true) await file.write(block);
  } catch {
    // the disk is full
  } finally {
    file.close();
  }
  const size = (await Deno.stat(join(dir, "filler"))).size;
  await Deno.truncate(join(dir, "filler"), Math.max(0, size - spare));
}

const noise = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, i) => (i * 2654435761 + seed * 40503) >>> 13 & 0xff);

const same = (x: Uint8Array, y: Uint8Array) =>
  x.length === y.length && x.every((v, i) => v === y[i]);

Deno.test({
  name: "a full disk during merge-back leaves the user's file whole and the slice's patch kept",
  ignore: Deno.build.os !== "linux" || Deno.uid() !== 0,
  async fn() {
    await using disk = await tmpfs(24);
    if (!disk) return;
    const root = join(disk.path, "repo");
    await Deno.mkdir(root);
    const w = await world(root);
    const original = noise(1_500_000, 1);
    // An uncommitted file of the user's, which the slice rewrites.
    await Deno.writeFile(join(root, "src", "big.bin"), original);
    const { a, b } = await sendSlices(w, ["a", "b"]);
    await Deno.writeTextFile(join(a.path, "src", "a.txt"), "from a\n");
    // a's copy of the file shares the main tree's blocks, so removing a's checkout frees nothing.
    await Deno.remove(join(a.path, "src", "big.bin"));
    await Deno.link(join(root, "src", "big.bin"), join(a.path, "src", "big.bin"));
    await Deno.writeFile(join(b.path, "src", "big.bin"), noise(1_500_000, 2));
    await done(w, a);
    await done(w, b);
    // b is captured now (its patch written) and waits for a, which comes first.
    assertEquals((await finalize(w, b)).code, 0);
    await fill(disk.path, 256 * 1024);
    const fin = await finalize(w, a);
    await Deno.remove(join(disk.path, "filler"));
    const now = await Deno.readFile(join(root, "src", "big.bin"));
    assertEquals(now.length, original.length, `the user's file was truncated: ${fin.stdout}`);
    assert(same(now, original), `the user's file changed: ${fin.stdout}`);
    const rec = JSON.parse(await Deno.readTextFile(b.record));
    assertEquals(rec.worktree.state, "conflict", fin.stdout);
    assert(await exists(join(root, rec.worktree.patch)), "the patch is gone");
    const keep = await peaks(w, ["sub-agent", "merge", "--record", b.record, "--keep", "main"]);
    assertEquals(keep.code, 0, keep.stdout);
    assert(same(await Deno.readFile(join(root, "src", "big.bin")), original));
  },
});

Deno.test("a slice of many files: the envelope lists a bounded number, and the conflict names exactly the refused file", async () => {
  await using tmp = await tempDir("peaks-hostile-many-");
  const w = await world(tmp.path);
  const { a } = await sendSlices(w, ["a"]);
  for (let i = 0; i < 300; i++) {
    await Deno.writeTextFile(join(a.path, "src", `f${i}.txt`), `${i}\n`);
  }
  await Deno.writeTextFile(join(a.path, "src", "shared.txt"), "from a\n");
  await Deno.writeTextFile(join(tmp.path, "src", "shared.txt"), "the user's\n");
  await done(w, a);
  const fin = await finalize(w, a);
  assertEquals(fin.code, 3, fin.stdout.slice(0, 2000));
  const row = fin.json.data.conflicts[0];
  assertEquals(row.files, ["src/shared.txt"]);
  const rec = JSON.parse(await Deno.readTextFile(a.record));
  assertEquals(rec.worktree.files.length, 301);
  const list = await peaks(w, ["sub-agent", "merge", "--record", a.record, "--keep", "main"]);
  assertEquals(list.code, 0, list.stdout.slice(0, 2000));
  assert(list.json.data.slice.files.length <= 100, `${list.json.data.slice.files.length}`);
  assertEquals(list.json.data.slice.filesTotal, 301);
});

Deno.test("finalize --batch --outcome done skips slices still running, and closes them only with --force", async () => {
  await using tmp = await tempDir("peaks-hostile-running-");
  const w = await world(tmp.path);
  const { a, b } = await sendSlices(w, ["a", "b"]);
  await Deno.writeTextFile(join(a.path, "src", "a.txt"), "from a\n");
  await Deno.writeTextFile(join(b.path, "src", "b.txt"), "half-writ");
  await done(w, a);
  const args = ["sub-agent", "finalize", "--batch", "b1", "--outcome", "done"];
  const fin = await peaks(w, args);
  assertEquals(fin.code, 0, fin.stdout);
  assertStringIncludes(JSON.stringify(fin.json.data.skipped), "--force");
  assert(await exists(join(b.path, "src", "b.txt")), "the running slice's worktree was removed");
  assert(!(await exists(join(tmp.path, "src", "b.txt"))), "half-written files were merged");
  assert(await exists(join(tmp.path, "src", "a.txt")), fin.stdout);
  const forced = await peaks(w, [...args, "--force"]);
  assertEquals(forced.code, 0, forced.stdout);
  assertEquals(JSON.parse(await Deno.readTextFile(b.record)).status, "done");
});

Deno.test("an empty git init inside one slice refuses that slice only; the others merge and cleanup runs", async () => {
  await using tmp = await tempDir("peaks-hostile-init-");
  const w = await world(tmp.path);
  const { a, b } = await sendSlices(w, ["a", "b"]);
  await Deno.mkdir(join(a.path, "sub"));
  await git(join(a.path, "sub"), "init", "-q");
  await Deno.writeTextFile(join(a.path, "sub", "x.txt"), "x\n");
  await Deno.writeTextFile(join(b.path, "src", "b.txt"), "from b\n");
  await done(w, a);
  await done(w, b);
  const fin = await peaks(w, ["sub-agent", "finalize", "--batch", "b1", "--outcome", "done"]);
  assertEquals(fin.code, 3, fin.stdout);
  assert(fin.json.code !== "WORKTREE_GIT_FAILED", fin.stdout);
  assert(await exists(join(tmp.path, "src", "b.txt")), fin.stdout);
  assert(await exists(join(a.path, "sub", "x.txt")));
  const clean = await peaks(w, ["sub-agent", "cleanup"]);
  assertEquals(clean.code, 0, clean.stdout);
});

Deno.test("--keep slice takes a file whose name holds a newline", async () => {
  await using tmp = await tempDir("peaks-hostile-newline-");
  const w = await world(tmp.path);
  const name = "src/odd\nname.txt";
  await Deno.writeTextFile(join(tmp.path, name), "base\n");
  await git(tmp.path, "add", "--", name);
  await git(tmp.path, "commit", "-q", "-m", "odd name");
  const { a } = await sendSlices(w, ["a"]);
  await Deno.writeTextFile(join(a.path, name), "from a\n");
  await Deno.writeTextFile(join(tmp.path, name), "the user's\n");
  await done(w, a);
  assertEquals((await finalize(w, a)).code, 3);
  const keep = await peaks(w, ["sub-agent", "merge", "--record", a.record, "--keep", "slice"]);
  assertEquals(keep.code, 0, keep.stdout);
  assertEquals(await Deno.readTextFile(join(tmp.path, name)), "from a\n");
});
