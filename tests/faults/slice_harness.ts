/**
 * Crash consistency of slice worktrees. Each round sends a slice DAG out
 * (peaks makes a worktree per node), plays the sub-agents (a file written in
 * each worktree, a final heartbeat), finalizes every slice (merging them
 * back, one of them in conflict), decides the conflict and runs cleanup;
 * creation, merges and removals are SIGKILLed at seeded random moments,
 * sometimes peaks alone (its git keeps going), sometimes with its whole
 * process group (git dies half-way too). Then `cleanup` runs unkilled, and
 * the repository and the records must be whole: nothing git cannot prune,
 * no worktree or branch no record wants, every merged change complete in the
 * main tree and no refused one in it, conflicts still recoverable.
 */
import { join } from "../../lib/infra/std.ts";
import { baseEnv, peaksArgs } from "../support/cli.ts";
import type { Rng } from "../support/prng.ts";
import { checkState } from "../support/state_check.ts";
import { git, GIT_ENV, sliceRepo, writeSliceDag } from "../support/slices.ts";
import type { DispatchRecord } from "../../lib/record/record.ts";

export type SliceOp = "create" | "merge" | "remove";

export interface SliceResult {
  kind: SliceOp;
  argv: string[];
  killed: boolean;
  group: boolean;
  code: number;
  // deno-lint-ignore no-explicit-any
  json: any;
  ms: number;
}

const NODES = ["a", "b", "c", "d"];

/** What each node writes: d writes a's file, so a and d overlap. */
function fileOf(round: number, node: string): string {
  return `src/r${round}-${node === "d" ? "a" : node}.txt`;
}

function contentOf(round: number, node: string): string {
  return `round ${round}, slice ${node}\n`;
}

export class SliceWorld {
  sid = "";
  round = 0;
  calibration: Record<string, number> = {};
  readonly results: SliceResult[] = [];

  /**
   * `ide` picks the worktrees' root: OpenCode's under `.git/peaks-worktrees`, Claude Code's
   * in-process sub-agents' under the project's `.claude/worktrees` (inside the main tree).
   */
  constructor(
    readonly root: string,
    readonly rng: Rng,
    readonly ide: "opencode" | "claude-code" = "opencode",
  ) {}

  async start(): Promise<void> {
    this.sid = await sliceRepo(this.root);
    // Claude Code isolates a clean tree with its own worktrees; an uncommitted file makes peaks
    // make them, as after peaks-code's startup.
    if (this.ide === "claude-code") {
      await Deno.writeTextFile(join(this.root, "NOTES.md"), "notes\n");
    }
  }

  private async env(): Promise<Record<string, string>> {
    return { ...(await baseEnv({ cwd: this.root })), ...GIT_ENV };
  }

  /** One peaks call; killed after `killAfterMs` (with its process group when `group`). */
  async run(kind: SliceOp | "setup", argv: string[], kill?: { afterMs: number; group: boolean }) {
    const started = performance.now();
    const child = new Deno.Command(Deno.execPath(), {
      args: peaksArgs([...argv, "--json"]),
      cwd: this.root,
      env: await this.env(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      // Its own process group, so a group kill takes its git children too.
      detached: true,
    }).spawn();
    let fired = false;
    const timer = kill
      ? setTimeout(() => {
        fired = true;
        try {
          if (kill.group) Deno.kill(-child.pid, "SIGKILL");
          else child.kill("SIGKILL");
        } catch {
          // already gone
        }
      }, kill.afterMs)
      : undefined;
    const out = await child.output();
    clearTimeout(timer);
    let json = undefined;
    try {
      json = JSON.parse(new TextDecoder().decode(out.stdout));
    } catch {
      json = undefined;
    }
    const result = {
      kind: kind as SliceOp,
      argv,
      killed: fired && out.signal === "SIGKILL",
      group: kill?.group ?? false,
      code: out.code,
      json,
      ms: performance.now() - started,
    };
    if (kind !== "setup") {
      this.results.push(result);
      if (!result.killed) {
        const old = this.calibration[kind];
        this.calibration[kind] = old === undefined ? result.ms : 0.8 * old + 0.2 * result.ms;
      }
    }
    return result;
  }

  private maybeKill(kind: SliceOp, pKill: number) {
    if (!this.rng.chance(pKill)) return undefined;
    const typical = this.calibration[kind] ?? 1500;
    return { afterMs: typical * (0.1 + 0.9 * this.rng.next()), group: this.rng.chance(0.5) };
  }

  private async records(batch: string): Promise<Array<{ path: string; record: DispatchRecord }>> {
    const state = await checkState(this.root);
    return [...state.records].filter(([, r]) => r.batchId === batch)
      .map(([rel, record]) => ({ path: `.peaks/${rel}`, record }));
  }

  /** One round: create, play the sub-agents, merge, decide, clean; each step may be killed. */
  async playRound(pKill: number): Promise<{ round: number; batch: string }> {
    const round = ++this.round;
    const rid = `round${round}`;
    const batch = `batch-${round}`;
    const dag = await writeSliceDag(
      this.root,
      this.sid,
      NODES.map((id) => ({ id, owns: [fileOf(round, id === "d" ? "dd" : id)] })),
      [],
      rid,
    );
    const dispatch = ["sub-agent", "dispatch", "--from-dag", dag, "--batch-id", batch];
    await this.run(
      "create",
      [...dispatch, "--request-id", rid, "--ide", this.ide],
      this.maybeKill("create", pKill),
    );
    for (const { path, record } of await this.records(batch)) {
      const wt = record.worktree;
      if (wt?.state !== "ready" || !wt.path || !wt.node) continue;
      await Deno.mkdir(join(wt.path, "src"), { recursive: true });
      await Deno.writeTextFile(join(wt.path, fileOf(round, wt.node)), contentOf(round, wt.node));
      const beat = [
        "sub-agent",
        "heartbeat",
        "--record",
        path,
        "--status",
        "done",
        "--progress",
        "100",
      ];
      await this.run("setup", beat);
    }
    const order = (await this.records(batch)).filter((r) => r.record.status === "done");
    for (const { path } of order.sort(() => this.rng.next() - 0.5)) {
      const finalize = ["sub-agent", "finalize", "--record", path, "--outcome", "done"];
      await this.run("merge", finalize, this.maybeKill("merge", pKill));
    }
    const conflicted = (await this.records(batch)).find((r) =>
      r.record.worktree?.state === "conflict"
    );
    if (conflicted) {
      const keep = [
        "sub-agent",
        "merge",
        "--record",
        conflicted.path,
        "--keep",
        this.rng.pick(["main", "slice"]),
      ];
      await this.run("remove", keep, this.maybeKill("remove", pKill));
    }
    await this.run("remove", ["sub-agent", "cleanup"], this.maybeKill("remove", pKill));
    return { round, batch };
  }

  /** The repair a person (or doctor's fix) runs: cleanup, unkilled; its envelope must be ok. */
  async repair(): Promise<string[]> {
    const cleanup = await this.run("setup", ["sub-agent", "cleanup"]);
    const doctor = await this.run("setup", ["doctor"]);
    const v: string[] = [];
    if (cleanup.code !== 0) {
      v.push(`cleanup after the kills exited ${cleanup.code}: ${JSON.stringify(cleanup.json)}`);
    }
    // deno-lint-ignore no-explicit-any
    const findings = (doctor.json?.data?.findings ?? []) as any[];
    for (
      const f of findings.filter((f) => f.check === "worktrees" && f.id !== "worktrees.conflict")
    ) {
      v.push(`doctor after cleanup: ${f.id} ${f.title}`);
    }
    return v;
  }

  /** Every invariant of the repository and the records (after the repair). */
  async check(): Promise<string[]> {
    const v: string[] = [];
    const state = await checkState(this.root);
    v.push(...state.violations);
    const slices = [...state.records.entries()].filter(([, r]) => r.worktree);
    const live = new Map<string, DispatchRecord>();
    const real = await Deno.realPath(this.root);
    const root = this.ide === "opencode"
      ? join(real, ".git", "peaks-worktrees")
      : join(real, ".claude", "worktrees", "peaks-");
    for (const [rel, record] of slices) {
      const wt = record.worktree!;
      if (wt.kind !== "peaks" || !wt.path?.startsWith(root)) {
        v.push(`${rel}: a ${wt.kind} worktree at ${wt.path}, not under ${root}`);
      }
      if (wt.state === "creating" || wt.state === "merging") v.push(`${rel}: still ${wt.state}`);
      const settled = ["merged", "discarded", "redo"].includes(wt.state);
      if (settled !== (wt.removedAt !== null)) {
        v.push(`${rel}: ${wt.state} with removedAt ${wt.removedAt}`);
      }
      if (!settled && wt.path) live.set(wt.path, record);
      if (wt.state === "conflict" && !(await exists(join(this.root, wt.patch ?? "-")))) {
        v.push(`${rel}: in conflict without its patch`);
      }
    }
    v.push(...await this.checkGit(live));
    v.push(...await this.checkMainTree(slices.map(([, r]) => r)));
    return v;
  }

  private async checkGit(live: Map<string, DispatchRecord>): Promise<string[]> {
    const v: string[] = [];
    const main = await Deno.realPath(this.root);
    const porcelain = await git(this.root, "worktree", "list", "--porcelain");
    for (const block of porcelain.split("\n\n").filter((b) => b.trim())) {
      const path = /^worktree (.+)$/m.exec(block)![1];
      if (path === main) continue;
      if (/^(locked|prunable)/m.test(block)) {
        v.push(`git lists ${path} as ${/^(locked|prunable)/m.exec(block)![1]}`);
      }
      if (!live.has(path)) v.push(`git lists ${path}, which no open slice wants`);
      if (!(await exists(path))) v.push(`git lists ${path}, which is gone`);
    }
    const branches =
      (await git(this.root, "for-each-ref", "--format=%(refname:short)", "refs/heads/peaks/"))
        .split("\n").filter(Boolean);
    const wanted = new Set([...live.values()].map((r) => r.worktree!.branch));
    for (const b of branches) if (!wanted.has(b)) v.push(`branch ${b} is left behind`);
    if ((await git(this.root, "diff", "--cached", "--name-only")).trim()) {
      v.push("the index was changed");
    }
    return v;
  }

  /** Merged changes are in the main tree whole; nothing else of this run is. */
  private async checkMainTree(records: DispatchRecord[]): Promise<string[]> {
    const v: string[] = [];
    const expected = new Map<string, string>();
    // A slice merged with --keep slice replaced what was there: it is applied last.
    const kept = (r: DispatchRecord) => r.worktree!.note?.startsWith("kept this slice") ? 1 : 0;
    for (const r of [...records].sort((a, b) => kept(a) - kept(b))) {
      const wt = r.worktree!;
      if (wt.state !== "merged" || !wt.node) continue;
      const round = Number(/^round(\d+)$/.exec(r.requestId)?.[1]);
      for (const file of wt.files) {
        if (expected.has(file) && !kept(r)) v.push(`${file} merged twice`);
        expected.set(file, contentOf(round, wt.node));
      }
    }
    for (let round = 1; round <= this.round; round++) {
      for (const node of NODES) {
        const file = fileOf(round, node);
        const text = await Deno.readTextFile(join(this.root, file)).catch(() => null);
        const want = expected.get(file) ?? null;
        if (text !== want) {
          v.push(`${file} is ${JSON.stringify(text)}, expected ${JSON.stringify(want)}`);
        }
      }
    }
    return v;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
