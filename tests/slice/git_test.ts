/**
 * The working tree of a slice is read by content: a file rewritten with the
 * same size in the same second as its checkout still counts as changed.
 */
import { assertEquals, assertNotEquals } from "@std/assert";
import { workingTree } from "../../lib/slice/_git.ts";
import { tempDir } from "../support/temp.ts";
import { join } from "../../lib/infra/std.ts";

function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args,
    cwd,
    env: {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@localhost",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@localhost",
    },
  }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("a same-size rewrite right after checkout is part of the slice's tree", async () => {
  await using dir = await tempDir();
  const repo = dir.path;
  git(repo, "init", "-q");
  const file = join(repo, "shared.txt");
  await Deno.writeTextFile(file, "one\nrd-x\nthree\n");
  // Older than the index, so the index's cached size and time are trusted.
  const past = new Date(Date.now() - 60_000);
  await Deno.utime(file, past, past);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "base");
  const base = git(repo, "rev-parse", "HEAD^{tree}");
  // Same size and the same time as the index holds: only the content differs.
  await Deno.writeTextFile(file, "one\nrd-y\nthree\n");
  await Deno.utime(file, past, past);
  const tree = await workingTree(repo, join(repo, ".git", "peaks-tmp"));
  assertNotEquals(tree, base);
  assertEquals(git(repo, "show", `${tree}:shared.txt`), "one\nrd-y\nthree");
});
