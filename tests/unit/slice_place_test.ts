/**
 * The two roots of peaks' slice worktrees: `<git dir>/peaks-worktrees/<key>`
 * and, for hosts that refuse writes under `.git/`,
 * `<top level>/.claude/worktrees/peaks-<key>`. Both are recognised as peaks'
 * own, and each must resolve inside its folder for real.
 */
import { assert, assertEquals, assertRejects } from "@std/assert";
import { join } from "../../lib/core/std.ts";
import { PeaksError } from "../../lib/core/errors.ts";
import type { Project } from "../../lib/core/project/project.ts";
import {
  ensureWorktreesRoot,
  isPeaksWorktreePath,
  type RepoPlace,
  repoPlace,
  sliceNames,
} from "../../lib/core/slice/place.ts";
import { tempDir } from "../support/temp.ts";

function git(cwd: string, ...args: string[]): void {
  const out = new Deno.Command("git", { args, cwd }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

async function placeIn(root: string): Promise<RepoPlace> {
  git(root, "init", "-q");
  const place = await repoPlace({ root } as Project);
  if (!place) throw new Error(`no repository at ${root}`);
  return place;
}

Deno.test("slice names under either root: same branch, the host's root inside .claude/worktrees", async () => {
  await using dir = await tempDir();
  const place = await placeIn(dir.path);
  const top = await Deno.realPath(dir.path);
  const git = sliceNames(place, "r1", "rd-a-0001");
  const host = sliceNames(place, "r1", "rd-a-0001", "host");
  assertEquals(git.branch, host.branch);
  assert(git.path.startsWith(join(top, ".git", "peaks-worktrees", "p-")), git.path);
  assert(host.path.startsWith(join(top, ".claude", "worktrees", "peaks-p-")), host.path);
  assertEquals(host.path.split("/").slice(-2), ["r1", "rd-a-0001"]);
  await ensureWorktreesRoot(place, "host");
  await Deno.mkdir(host.path, { recursive: true });
  assert(await isPeaksWorktreePath(place, host.path));
  assert(await isPeaksWorktreePath(place, git.path), "gone: the lexical check decides");
  assert(!(await isPeaksWorktreePath(place, join(top, ".claude", "worktrees", "agent-x"))));
  assert(!(await isPeaksWorktreePath(place, place.hostWorktreesRoot)));
});

Deno.test("a .claude/worktrees that resolves outside the main tree is refused, and nothing there counts as peaks'", async () => {
  await using dir = await tempDir();
  await using out = await tempDir();
  const place = await placeIn(dir.path);
  await Deno.mkdir(join(dir.path, ".claude"));
  await Deno.symlink(out.path, join(dir.path, ".claude", "worktrees"));
  const error = await assertRejects(() => ensureWorktreesRoot(place, "host"), PeaksError);
  assertEquals(error.code, "PATH_OUTSIDE_PROJECT");
  assertEquals([...Deno.readDirSync(out.path)], [], "nothing was made out there");
  const path = sliceNames(place, "r1", "rd-a-0001", "host").path;
  await Deno.mkdir(path, { recursive: true });
  assert(!(await isPeaksWorktreePath(place, path)));
  await ensureWorktreesRoot(place, "git");
});
