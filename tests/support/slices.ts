/**
 * Slice fixtures: a git repository with a peaks workspace, a slice DAG where
 * RD planning writes it, and git asked the way a person would (worktree
 * list, branches, status). Git runs with a fixed identity and no user or
 * system configuration.
 */
import { assert } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { writeText } from "./temp.ts";
import { initWorkspace } from "./subagent.ts";

export const GIT_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: "Slice Test",
  GIT_AUTHOR_EMAIL: "slices@example.test",
  GIT_COMMITTER_NAME: "Slice Test",
  GIT_COMMITTER_EMAIL: "slices@example.test",
  GIT_CONFIG_NOSYSTEM: "1",
};

/** Runs git in `cwd` with the test identity; returns stdout, fails the test on a non-zero exit. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: { ...GIT_ENV, HOME: join(cwd, ".git", "test-home"), PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert(out.success, `git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return text;
}

export const SHARED = "one\ntwo\nthree\n";

/** A repository with one commit (README.md, src/shared.txt) and a peaks workspace; returns the session. */
export async function sliceRepo(root: string, env: Record<string, string> = {}): Promise<string> {
  await git(root, "init", "-q", "-b", "main");
  await writeText(join(root, "README.md"), "a project\n");
  await writeText(join(root, "src", "shared.txt"), SHARED);
  await git(root, "add", "README.md", "src/shared.txt");
  await git(root, "commit", "-q", "-m", "start");
  return await initWorkspace(root, { ...GIT_ENV, ...env });
}

export interface SliceNode {
  id: string;
  owns?: string[];
  role?: string;
  isolation?: "worktree" | null;
}

/** Writes `.peaks/_runtime/<sid>/rd/slices-<rid>.json`; returns its project-relative path. */
export async function writeSliceDag(
  root: string,
  sid: string,
  nodes: SliceNode[],
  edges: Array<{ from: string; to: string }> = [],
  rid = "r1",
): Promise<string> {
  const rel = `.peaks/_runtime/${sid}/rd/slices-${rid}.json`;
  const dag = {
    nodes: nodes.map((n) => ({
      id: n.id,
      role: n.role ?? `rd-${n.id}`,
      prompt: `Build slice ${n.id}.`,
      ...(n.owns === undefined
        ? { owns: [`src/rd-${n.id}.txt`] }
        : n.owns.length
        ? { owns: n.owns }
        : {}),
      ...(n.isolation === null ? {} : { isolation: n.isolation ?? "worktree" }),
    })),
    edges,
  };
  await writeText(join(root, rel), JSON.stringify(dag, null, 2));
  return rel;
}

/** The paths `git worktree list` shows. */
export async function worktreePaths(root: string): Promise<string[]> {
  return (await git(root, "worktree", "list", "--porcelain")).split("\n")
    .filter((l) => l.startsWith("worktree ")).map((l) => l.slice(9));
}

/** Branches under peaks/. */
export async function sliceBranches(root: string): Promise<string[]> {
  return (await git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/peaks/"))
    .split("\n").filter(Boolean);
}
