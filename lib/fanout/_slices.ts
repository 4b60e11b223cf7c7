/**
 * The isolated nodes of a `--from-dag` wave (`"isolation": "worktree"`). In a
 * host whose sub-agent tool isolates by itself (Claude Code) the tool call
 * carries the host's argument, as long as the main tree has nothing
 * uncommitted (the host starts its worktree from HEAD, and a slice must see
 * what the slices before it merged). Otherwise, and in detached runs, peaks
 * makes one git worktree per node from a snapshot of the main tree: under
 * `.claude/worktrees/` for Claude Code's in-process sub-agents (the host
 * refuses their writes under `.git/`), else under `.git/`. Each sub-agent's
 * prompt sends it into its worktree; each record says where it is.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import type { Warning } from "../infra/errors.ts";
import type { NodeProgress } from "../dag/progress.ts";
import { hostIsolationArgs, peaksWorktreesInHostFolder } from "../hosts/isolation.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { createSliceWorktrees, mainTree, undoCreation, untrackedLoad } from "../slice/create.ts";
import { requirePlace, withSliceLock } from "../slice/merge.ts";
import { type RepoPlace, sliceNames, type WorktreesRootKind } from "../slice/place.ts";
import { PeaksError } from "../infra/errors.ts";
import type { IsolationPlan, WrittenDispatch } from "../dispatch/new_record.ts";
import type { DagCall } from "./_call.ts";
import { withoutEmpty } from "../infra/command/lean.ts";
import { recordIdOf, runNameFor } from "../record/names.ts";
import { isoTime } from "../infra/ids.ts";
import { commandLine } from "../infra/shell.ts";

export interface WaveSlices {
  warnings: Warning[];
  /** The isolation of a node of the wave (undefined for a node without it). */
  plan(node: string, requestId: string): IsolationPlan | undefined;
  /** Writes the wave's records and creates peaks' worktrees, all under the slice lock. */
  write(records: () => Promise<WrittenDispatch[]>): Promise<WrittenDispatch[]>;
  /** Per isolated node: where it works. */
  views(written: WrittenDispatch[]): Array<Record<string, unknown>>;
}

interface NodeFacts {
  order: [number, number];
  owns: string[];
  /** What an earlier attempt of this node left (it is being redone). */
  redo: string | null;
}

function nodeFacts(call: DagCall, id: string, progress: Map<string, NodeProgress>): NodeFacts {
  const level = call.analysis.levelOf.get(id)!;
  const node = call.analysis.byId.get(id)!;
  const earlier = progress.get(id)?.record?.worktree;
  const redo = earlier?.state === "redo"
    ? `An earlier attempt of this slice was not merged (${
      earlier.conflict?.message ?? "it was sent back"
    }). Its change is saved in ${
      earlier.patch ?? "no patch"
    }: read it, then make the change again on top of the code in your worktree.`
    : null;
  return {
    order: [level, call.analysis.levels[level - 1].indexOf(id)],
    owns: node.owns ?? [],
    redo,
  };
}

function rules(project: Project, node: string, facts: NodeFacts): string[] {
  return [
    facts.owns.length
      ? `- You own ${
        facts.owns.join(", ")
      }: change nothing else (files outside it are reported when you are merged).`
      : "- Change only the files your task is about: other slices change the rest.",
    `- peaks' own files stay in the main project: run every peaks command exactly as given (they name --project), and write artefacts and notes under ${project.root}/.peaks/, never under .peaks/ in your worktree (that copy is not merged back).`,
    "- Do not commit, branch or reset in the worktree: leave your change uncommitted. (A commit there still comes back with your change, and finalize reports it as UNAUTHORIZED_COMMIT.)",
    ...(facts.redo ? [`- ${facts.redo}`] : []),
    `- Slice: ${node}; peaks merges your change back into ${project.root} when the orchestrator finalizes you, in the order of the slice DAG.`,
  ];
}

function peaksBlock(project: Project, dir: string, node: string, facts: NodeFacts): string {
  return [
    "## Your worktree (isolated slice)",
    `You work in your own git worktree, not in the project root: ${dir}`,
    "- cd into it first and use it for every read, edit, build and test (give the Write and Edit tools paths inside it); never edit the project's files outside it, where other slices are merged in parallel.",
    ...rules(project, node, facts),
  ].join("\n");
}

/**
 * The brief's worktree section for a host-made worktree. Claude Code starts the sub-agent at the
 * worktree's top level even when the project is a folder inside the repository, and starts every
 * shell command there again (2.1.328), so the brief then names that folder for each tool.
 */
function hostBlock(project: Project, projectRel: string, node: string, facts: NodeFacts): string {
  const cd = commandLine(["cd", projectRel]);
  const where = projectRel
    ? `Claude Code starts you at the top level of a temporary git worktree of the repository (isolation: worktree). The project is its folder ${projectRel}/: work only inside that folder of your directory, never on files under the project root, where other slices are merged in parallel. Give the Write and Edit tools paths under ${projectRel}/ of your directory, and begin each shell command with \`${cd} && \` (every command starts again at the top level).`
    : "Claude Code starts you in a temporary git worktree of the repository (isolation: worktree): work only in your current directory, never on files under the project root, where other slices are merged in parallel.";
  return [
    "## Your worktree (isolated slice)",
    where,
    ...rules(project, node, facts),
  ].join("\n");
}

function worktreeField(
  kind: "peaks" | "host",
  node: string,
  facts: NodeFacts,
  where: { path: string; projectDir: string; branch: string } | null,
  at: string,
) {
  return {
    kind,
    state: kind === "peaks" ? "creating" : "ready",
    node,
    order: facts.order,
    owns: facts.owns,
    path: where?.path ?? null,
    projectDir: where?.projectDir ?? null,
    // peaks' own worktrees are detached (no branch); a host's gets its branch at finalize.
    branch: null,
    base: null,
    head: null,
    tree: null,
    patch: null,
    files: [],
    conflict: null,
    note: facts.redo ? "dispatched again after a conflict" : null,
    removedAt: null,
    updatedAt: at,
  };
}

/** Decides host or peaks isolation for the wave; undefined when no node of it is isolated. */
export async function planWaveSlices(
  ctx: Ctx,
  call: DagCall,
  nodes: string[],
  options: { detached: boolean; progress: Map<string, NodeProgress> },
): Promise<WaveSlices | undefined> {
  const isolated = new Set(
    nodes.filter((id) => call.analysis.byId.get(id)?.isolation === "worktree"),
  );
  if (!isolated.size) return undefined;
  const { project } = call.session;
  const place = await requirePlace(project);
  const warnings: Warning[] = [];
  let hostArgs = options.detached ? null : hostIsolationArgs(call.detected.ide);
  if (hostArgs && !(await mainTree(place)).clean) {
    hostArgs = null;
    warnings.push({
      code: "HOST_ISOLATION_SKIPPED",
      message:
        `The main tree has uncommitted changes, which ${call.detected.ide.id}'s own worktrees (made from HEAD) would not see; peaks makes the slices' worktrees from the main tree instead.`,
    });
  }
  const kind: WorktreesRootKind = !options.detached && peaksWorktreesInHostFolder(call.detected.ide)
    ? "host"
    : "git";
  if (!hostArgs) warnings.push(...await untrackedWarnings(place, isolated.size));
  const at = isoTime(ctx.now());
  return {
    warnings,
    plan: (id, requestId) => {
      if (!isolated.has(id)) return undefined;
      const facts = nodeFacts(call, id, options.progress);
      if (hostArgs) {
        return {
          toolArgs: hostArgs,
          block: () => hostBlock(project, place.projectRel, id, facts),
          fields: () => ({ worktree: worktreeField("host", id, facts, null, at) }),
        };
      }
      const names = (file: string) =>
        sliceNames(place, requestId, runNameFor(file, requestId), kind);
      return {
        block: (file) => peaksBlock(project, names(file).projectDir, id, facts),
        fields: (file) => ({ worktree: worktreeField("peaks", id, facts, names(file), at) }),
      };
    },
    write: (records) => writeAndCreate(ctx, { project, place, kind }, records),
    views: (written) => viewsOf(project, written),
  };
}

const MiB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
/** Untracked files copied into slices are announced from this total on. */
const UNTRACKED_ANNOUNCED_BYTES = MiB;

/**
 * What the wave's snapshot does with untracked files: those over the limit stay out (named, with
 * their size), and a sizeable rest is announced, since it goes into git's objects and every slice.
 */
async function untrackedWarnings(place: RepoPlace, slices: number): Promise<Warning[]> {
  const { copied, skipped, limit } = await untrackedLoad(place);
  const warnings: Warning[] = [];
  const largest = (files: typeof copied) => [...files].sort((a, b) => b.bytes - a.bytes);
  if (skipped.length) {
    const named = largest(skipped).slice(0, 20);
    warnings.push({
      code: "SLICE_UNTRACKED_SKIPPED",
      message: `${skipped.length} untracked file(s) over the ${
        mib(limit)
      } limit are not copied into the slices' worktrees, so their sub-agents will not see them: ${
        named.map((f) => `${f.path} (${mib(f.bytes)})`).join(", ")
      }${
        skipped.length > named.length ? ", …" : ""
      }. Commit or ignore them, or raise the limit with PEAKS_SLICE_UNTRACKED_MAX_BYTES=<bytes>.`,
      files: named,
      limit,
    });
  }
  const total = copied.reduce((n, f) => n + f.bytes, 0);
  if (total >= UNTRACKED_ANNOUNCED_BYTES) {
    const named = largest(copied).slice(0, 5);
    warnings.push({
      code: "SLICE_UNTRACKED_COPIED",
      message: `${mib(total)} of untracked files (${copied.length}; largest ${
        named.map((f) => `${f.path} ${mib(f.bytes)}`).join(", ")
      }) go into git's objects once and into each of the ${slices} slice worktree(s).`,
      bytes: total,
      files: named,
    });
  }
  return warnings;
}

async function writeAndCreate(
  ctx: Ctx,
  where: { project: Project; place: RepoPlace; kind: WorktreesRootKind },
  records: () => Promise<WrittenDispatch[]>,
): Promise<WrittenDispatch[]> {
  const { project, place, kind } = where;
  return await withSliceLock(project, async () => {
    const written = await records();
    const paths = written.filter((w) => w.record.worktree?.kind === "peaks").map((w) => w.path);
    try {
      await createSliceWorktrees(place, paths, () => ctx.now(), kind);
    } catch (error) {
      const reason = error instanceof PeaksError ? error.message : String(error);
      await undoCreation(place, paths, reason, () => ctx.now());
      throw error;
    }
    return written;
  });
}

function viewsOf(project: Project, written: WrittenDispatch[]) {
  return written.filter((w) => w.record.worktree).map((w) => {
    const wt = w.record.worktree!;
    return withoutEmpty({
      node: wt.node,
      record: recordIdOf(w.path),
      kind: wt.kind,
      worktree: wt.path ? displayPath(project.root, wt.path) : undefined,
      branch: wt.branch,
    });
  });
}
