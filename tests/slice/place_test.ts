/**
 * The two roots of peaks' slice worktrees: `<git dir>/peaks-worktrees/<key>`
 * and, for hosts that refuse writes under `.git/`,
 * `<project>/.claude/worktrees/peaks-<key>` (the project's folder, which is
 * the top level unless the project is a folder inside the repository). Both
 * are recognised as peaks' own, and each must resolve inside its folder for real.
 */
import { assert, assertEquals, assertRejects } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import type { Project } from "../../lib/workspace/project.ts";
import {
  ensureWorktreesRoot,
  isPeaksWorktreePath,
  type RepoPlace,
  repoPlace,
  sliceNames,
} from "../../lib/slice/place.ts";
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

Deno.test("a project in a folder of its repository keeps the host's root in its own .claude/worktrees", async () => {
  await using dir = await tempDir();
  git(dir.path, "init", "-q");
  const top = await Deno.realPath(dir.path);
  const app = join(top, "packages", "app");
  await Deno.mkdir(app, { recursive: true });
  const place = await repoPlace({ root: app } as Project);
  if (!place) throw new Error("no repository");
  assertEquals(place.projectRel, "packages/app");
  assert(place.hostWorktreesRoot.startsWith(join(app, ".claude", "worktrees", "peaks-p-")));
  const host = sliceNames(place, "r1", "rd-a-0001", "host");
  // The checkout holds the whole repository; the project is its folder inside.
  assertEquals(host.projectDir, join(host.path, "packages", "app"));
  await ensureWorktreesRoot(place, "host");
  await Deno.mkdir(host.path, { recursive: true });
  assert(await isPeaksWorktreePath(place, host.path));
  // The top level's folder is not this project's.
  const atTop = join(top, ".claude", "worktrees", place.hostWorktreesRoot.split("/").at(-1)!, "r1");
  assert(!(await isPeaksWorktreePath(place, join(atTop, "rd-a-0001"))));
});

Deno.test("a .claude that links above the project is refused before anything is made there", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "repo");
  await Deno.mkdir(repo);
  const place = await placeIn(repo);
  // The link leads to a folder that holds the project: every path under it looks on the way.
  await Deno.symlink(dir.path, join(repo, ".claude"));
  const error = await assertRejects(() => ensureWorktreesRoot(place, "host"), PeaksError);
  assertEquals(error.code, "PATH_OUTSIDE_PROJECT");
  assertEquals([...Deno.readDirSync(dir.path)].map((e) => e.name), ["repo"], "nothing made there");
});
