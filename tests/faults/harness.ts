/**
 * Crash consistency under fault injection. Each round starts several real
 * peaks writers at once (heartbeat, share, dispatch, finalize, request
 * transitions) with the binary's permissions, SIGKILLs most of them after a
 * seeded random delay, then checks every state file with the real schemas
 * and the per-operation invariants: a writer that reported success left its
 * change, a refused writer left nothing, a killed one left all or nothing,
 * and no writer waited on a lock that a killed process had held.
 */
import { recordPathOf } from "../support/subagent.ts";
import { baseEnv, peaksArgs } from "../support/cli.ts";
import type { Rng } from "../support/prng.ts";
import { checkState, type StateReport } from "../support/state_check.ts";

export type OpKind = "heartbeat" | "share" | "dispatch" | "finalize" | "transition" | "override";

export interface Op {
  kind: OpKind;
  argv: string[];
  /** A unique word the operation leaves on disk (note, key, prompt, reason, error). */
  marker: string;
  /** The record, request or batch it writes. */
  target: string;
}

export interface OpResult {
  op: Op;
  killed: boolean;
  code: number;
  // deno-lint-ignore no-explicit-any
  json: any;
  stderr: string;
  ms: number;
}

export interface FaultSummary {
  seed: number;
  rounds: number;
  writers: number;
  injections: number;
  injectionsByKind: Record<string, number>;
  filesChecked: number;
  tempLeftovers: number;
  violations: string[];
}

const CRASH_TEXT = /Uncaught|^\s+at |panicked|RUST_BACKTRACE/m;

export class FaultWorld {
  readonly root: string;
  private counter = 0;
  private epoch = 0;
  sid = "";
  batch = "";
  records: string[] = [];
  calibration: Record<string, number> = {};

  constructor(root: string, readonly rng: Rng) {
    this.root = root;
  }

  async start(): Promise<void> {
    await baseEnv({ cwd: this.root });
  }

  /** Runs one writer to completion, or kills it after `killAfterMs`. */
  async run(op: Op, killAfterMs?: number): Promise<OpResult> {
    const started = performance.now();
    const child = new Deno.Command(Deno.execPath(), {
      args: peaksArgs([...op.argv, "--json"]),
      cwd: this.root,
      // Per run, so each writer gets its own permission-audit file when auditing.
      env: { ...(await baseEnv({ cwd: this.root })), CLAUDECODE: "1" },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (killAfterMs !== undefined) {
      timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already exited.
        }
      }, killAfterMs);
    }
    const out = await child.output();
    clearTimeout(timer);
    const stdout = new TextDecoder().decode(out.stdout);
    let json = undefined;
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
    return {
      op,
      killed: out.signal === "SIGKILL",
      code: out.code,
      json,
      stderr: new TextDecoder().decode(out.stderr),
      ms: performance.now() - started,
    };
  }

  private mark(kind: string): string {
    return `${kind}-${this.epoch}-${++this.counter}`;
  }

  /** A fresh session with a batch of two records and two PRD requests; nothing is killed here. */
  async newEpoch(): Promise<void> {
    this.epoch++;
    this.sid = `2026-01-01-session-${(0xa00000 + this.epoch).toString(16)}`;
    this.batch = `batch-${this.epoch}`;
    this.records = [];
    const setup: string[][] = [
      ["workspace", "init", "--session-id", this.sid],
      ["request", "init", "--role", "prd", "--id", "r1", "--apply"],
      ["request", "init", "--role", "prd", "--id", "r2", "--apply"],
    ];
    for (const argv of setup) await this.must(argv);
    for (const role of ["rd", "qa"]) {
      const result = await this.must([
        "sub-agent",
        "dispatch",
        role,
        "--batch-id",
        this.batch,
        "--prompt",
        this.mark("setup"),
      ]);
      this.records.push(recordPathOf(this.root, result.json.data.record));
    }
  }

  private async must(argv: string[]): Promise<OpResult> {
    const result = await this.run({ kind: "dispatch", argv, marker: "", target: "" });
    if (result.code !== 0) {
      throw new Error(`setup ${argv.join(" ")}: ${JSON.stringify(result.json)} ${result.stderr}`);
    }
    return result;
  }

  /** The writers of one round, chosen from what is on disk now. */
  plan(state: StateReport): Op[] {
    const r = this.rng;
    const open = this.records.filter((path) => {
      const record = state.records.get(path.replace(/^\.peaks\//, ""));
      return record && !["done", "failed", "cancelled", "timeout"].includes(record.status);
    });
    const ops: Op[] = [];
    for (let i = 0; i < 2 && open.length; i++) {
      const target = r.pick(open);
      const marker = this.mark("hb");
      const status = r.chance(0.1) ? "done" : r.pick(["running", "finalizing"]);
      ops.push({
        kind: "heartbeat",
        marker,
        target,
        argv: [
          "sub-agent",
          "heartbeat",
          "--record",
          target,
          "--status",
          status,
          "--progress",
          String(r.int(0, 100)),
          "--note",
          marker,
        ],
      });
    }
    const key = this.mark("k");
    ops.push({
      kind: "share",
      marker: key,
      target: this.batch,
      argv: [
        "sub-agent",
        "share",
        "--batch",
        this.batch,
        "--key",
        key,
        "--value",
        `{"k":"${key}"}`,
      ],
    });
    const prompt = this.mark("dispatch");
    ops.push({
      kind: "dispatch",
      marker: prompt,
      target: this.batch,
      argv: [
        "sub-agent",
        "dispatch",
        r.pick(["rd", "qa", "ui"]),
        "--batch-id",
        this.batch,
        "--prompt",
        prompt,
      ],
    });
    ops.push(this.transition(state, "r1", false));
    if (r.chance(0.4)) ops.push(this.transition(state, "r2", true));
    if (open.length > 1 && r.chance(0.3)) {
      const target = r.pick(open);
      const marker = this.mark("fin");
      ops.push({
        kind: "finalize",
        marker,
        target,
        argv: [
          "sub-agent",
          "finalize",
          "--record",
          target,
          "--outcome",
          r.pick(["done", "failed", "cancelled"]),
          "--error",
          marker,
        ],
      });
    }
    return ops;
  }

  private requestRel(rid: string): string {
    return `_runtime/${this.sid}/prd/requests/${rid}.md`;
  }

  /** r1 bounces between draft and blocked; r2 moves forward through --allow-incomplete. */
  private transition(state: StateReport, rid: string, override: boolean): Op {
    const current = state.requests.get(this.requestRel(rid))?.state ?? "draft";
    const marker = this.mark(override ? "ov" : "tr");
    const base = ["request", "transition", rid, "--role", "prd", "--reason", marker];
    let to: string[];
    if (current === "blocked") to = ["--state", "draft"];
    else if (!override) to = ["--state", "blocked"];
    else if (current === "draft") to = ["--state", "confirmed-by-user", "--allow-incomplete"];
    else if (current === "confirmed-by-user") to = ["--state", "handed-off", "--allow-incomplete"];
    else to = ["--state", "blocked"];
    return {
      kind: override ? "override" : "transition",
      marker,
      target: this.requestRel(rid),
      argv: [...base, ...to],
    };
  }

  /** Starts every writer at once; each is killed with probability `pKill` at a random moment. */
  async round(ops: Op[], pKill: number): Promise<OpResult[]> {
    return await Promise.all(ops.map((op) => {
      const typical = this.calibration[op.kind] ?? 150;
      const kill = this.rng.chance(pKill) ? typical * (0.3 + 0.8 * this.rng.next()) : undefined;
      return this.run(op, kill);
    }));
  }

  /**
   * Learns how long each kind of writer takes (a moving average of the runs
   * that were not killed), so kills keep landing while writers work even
   * when the machine's load changes.
   */
  calibrate(results: OpResult[]): void {
    for (const r of results) {
      if (r.killed) continue;
      const old = this.calibration[r.op.kind];
      this.calibration[r.op.kind] = old === undefined ? r.ms : 0.8 * old + 0.2 * r.ms;
    }
  }

  /** Remembers records that dispatches created (also ones whose writer was killed afterwards). */
  adopt(state: StateReport): void {
    for (const [rel, record] of state.records) {
      const shown = `.peaks/${rel}`;
      if (record.sessionId === this.sid && !this.records.includes(shown)) this.records.push(shown);
    }
  }

  check(): Promise<StateReport> {
    return checkState(this.root);
  }
}

/** What each finished writer promises about the state it left. */
export function checkOutcomes(results: OpResult[], state: StateReport): string[] {
  const v: string[] = [];
  for (const result of results) {
    const { op } = result;
    const label = `${op.kind} ${op.marker}`;
    if (!result.killed) {
      if (![0, 1, 2, 3].includes(result.code)) v.push(`${label}: exit ${result.code}`);
      if (CRASH_TEXT.test(result.stderr)) v.push(`${label}: crash text ${result.stderr}`);
      if (result.json === undefined) v.push(`${label}: stdout is not one JSON envelope`);
    }
    if (result.json?.code === "LOCK_TIMEOUT") v.push(`${label}: LOCK_TIMEOUT after a kill`);
    if (result.killed) continue;
    if (result.json?.code === "ALLOW_INCOMPLETE_LIMIT") {
      // Refused for the limit: three uses must really have happened (killed ones do not count).
      const sid = op.target.split("/")[1];
      const used = [...state.requests].filter(([rel]) => rel.split("/")[1] === sid)
        .flatMap(([, r]) => r.history).filter((line) => line.includes("allow-incomplete (")).length;
      if (used < 3) v.push(`${label}: ALLOW_INCOMPLETE_LIMIT after only ${used} uses`);
    }
    const ok = result.code === 0;
    const present = landed(op, state);
    if (present === undefined) continue;
    if (ok && !present) v.push(`${label}: reported success but its change is missing`);
    if (!ok && present) v.push(`${label}: refused (${result.json?.code}) but changed the state`);
  }
  return v;
}

/** Whether the operation's marker is on disk; undefined when that cannot be told. */
function landed(op: Op, state: StateReport): boolean | undefined {
  switch (op.kind) {
    case "heartbeat": {
      const record = state.records.get(op.target.replace(/^\.peaks\//, ""));
      if (!record || record.truncated) return undefined;
      return record.heartbeats.some((b) => b.note === op.marker);
    }
    case "share": {
      for (const [rel, channel] of state.channels) {
        if (
          rel.endsWith(`/${op.target}.json`) && channel.entries.some((e) => e.key === op.marker)
        ) {
          return true;
        }
      }
      return false;
    }
    case "dispatch":
      return [...state.records.values()].some((r) => r.prompt.includes(op.marker));
    case "finalize": {
      const record = state.records.get(op.target.replace(/^\.peaks\//, ""));
      return record?.error === op.marker ? true : undefined;
    }
    case "transition":
    case "override": {
      const request = state.requests.get(op.target);
      return request?.history.some((line) => line.endsWith(`reason: ${op.marker})`)) ?? false;
    }
  }
}
