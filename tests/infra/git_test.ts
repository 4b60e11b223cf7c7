import { assert, assertEquals } from "@std/assert";
import { readGitHead } from "../../lib/infra/git.ts";
import { tempDir } from "../support/temp.ts";

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    cwd,
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("HEAD read from the .git folder matches what git says: loose, packed, detached, unborn, worktree", async () => {
  await using dir = await tempDir();
  await git(dir.path, "init", "-q", "-b", "main");
  assertEquals(await readGitHead(dir.path), null, "no commit yet");
  await git(dir.path, "commit", "-q", "--allow-empty", "-m", "one");
  const first = await git(dir.path, "rev-parse", "HEAD");
  assertEquals(await readGitHead(dir.path), { head: first, branch: "main" });

  await git(dir.path, "pack-refs", "--all");
  assertEquals(await readGitHead(dir.path), { head: first, branch: "main" }, "packed ref");

  await git(dir.path, "commit", "-q", "--allow-empty", "-m", "two");
  const second = await git(dir.path, "rev-parse", "HEAD");
  assertEquals(
    await readGitHead(dir.path),
    { head: second, branch: "main" },
    "loose ref after packing",
  );

  await git(dir.path, "checkout", "-q", "--detach", first);
  assertEquals(await readGitHead(dir.path), { head: first, branch: "HEAD" }, "detached");

  await Deno.mkdir(`${dir.path}/sub/deeper`, { recursive: true });
  assertEquals((await readGitHead(`${dir.path}/sub/deeper`))?.head, first, "from a sub-folder");

  await using other = await tempDir();
  await git(dir.path, "worktree", "add", "-q", "-b", "side", `${other.path}/wt`, second);
  assertEquals(
    await readGitHead(`${other.path}/wt`),
    { head: second, branch: "side" },
    "a linked worktree",
  );
  await git(`${other.path}/wt`, "commit", "-q", "--allow-empty", "-m", "three");
  const third = await git(`${other.path}/wt`, "rev-parse", "HEAD");
  await git(dir.path, "pack-refs", "--all");
  assertEquals(
    await readGitHead(`${other.path}/wt/`),
    { head: third, branch: "side" },
    "a linked worktree's packed branch",
  );

  await using none = await tempDir();
  assertEquals(await readGitHead(none.path), null);
});

Deno.test("a worktree's HEAD comes from its files, without starting git", async () => {
  await using dir = await tempDir();
  await git(dir.path, "init", "-q", "-b", "main");
  await git(dir.path, "commit", "-q", "--allow-empty", "-m", "one");
  const first = await git(dir.path, "rev-parse", "HEAD");
  await using other = await tempDir();
  await git(dir.path, "worktree", "add", "-q", "-b", "side", `${other.path}/wt`, first);
  await git(`${other.path}/wt`, "checkout", "-q", "--detach");
  const path = Deno.env.get("PATH") ?? "";
  // No git to start: only the files can answer.
  Deno.env.set("PATH", "");
  try {
    assertEquals(await readGitHead(`${other.path}/wt`), { head: first, branch: "HEAD" });
    assertEquals(await readGitHead(dir.path), { head: first, branch: "main" });
  } finally {
    Deno.env.set("PATH", path);
  }
  // A .git file that points nowhere sensible leaves the answer to git (none here: no repository).
  await using odd = await tempDir();
  await Deno.writeTextFile(`${odd.path}/.git`, "gitdir: /nonexistent/place\n");
  assertEquals(await readGitHead(odd.path), null);
});

Deno.test("commit subjects are clipped: a subject of a megabyte comes back at most SUBJECT_MAX long", async () => {
  const { commitsSince, SUBJECT_MAX } = await import("../../lib/infra/git.ts");
  const dir = await Deno.makeTempDir({ prefix: "peaks-subject-" });
  try {
    const env = {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    };
    const run = (...args: string[]) =>
      new Deno.Command("git", { args, cwd: dir, env, stdout: "piped", stderr: "null" }).output();
    await run("init", "-q");
    await run("commit", "-q", "--allow-empty", "-m", "start");
    const base = new TextDecoder().decode((await run("rev-parse", "HEAD")).stdout).trim();
    await Deno.writeTextFile(`${dir}.msg`, "x".repeat(1_000_000));
    await run("commit", "-q", "--allow-empty", "-F", `${dir}.msg`);
    const commits = await commitsSince(dir, base);
    assertEquals(commits?.length, 1);
    assert(commits![0].subject.length <= SUBJECT_MAX, `${commits![0].subject.length}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(`${dir}.msg`).catch(() => {});
  }
});
