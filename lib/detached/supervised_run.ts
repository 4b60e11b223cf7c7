/**
 * The supervisor's life: take the lease, start the vendor, copy its output
 * chunk by chunk into log.txt, beat the record on output (rate-limited) and
 * while it is silent, stop it on timeout, stop request, a vanished record or
 * a signal (SIGTERM, then SIGKILL after a grace period), and on every way
 * out write the record's outcome, exit.json and the final status.json
 * before removing the pid file last.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import type { DetachedInfo, RunStatus } from "./runs.ts";
import { applyBeat } from "../record/heartbeat.ts";
import type { Project } from "../workspace/project.ts";
import type { DispatchRecord } from "../record/record.ts";
import { isTerminal } from "../state/record.ts";
import { recordFileOf } from "../record/names.ts";
import { type Vendor, vendorCommand } from "../hosts/vendors.ts";
import { DEFAULT_VENDOR_PERMISSIONS } from "../state/preferences.ts";
import { pointerPrompt } from "../dispatch/tool_call.ts";
import { HISTORY_BOUNDARY } from "./_history_boundary.ts";
import { finishRun, type RunState, type StopReason, type Supervised } from "./_finish.ts";
import type { RunFiles } from "./run_files.ts";
import { invocation } from "./vendor_cli.ts";
import { VendorOutput } from "./vendor_output.ts";
import { join } from "../infra/std.ts";
import { exists, writeFileAtomic } from "../infra/fs/files.ts";
import { after, every, sleep } from "../infra/timer.ts";
import { updateRecord } from "../record/record.ts";
import { drain, feed, kill, listenForSignals, pump } from "./_process.ts";
import { sliceWorkDir } from "../record/worktree.ts";
import { isoTime } from "../infra/ids.ts";

/** Output beats are at most this frequent. */
const MIN_BEAT_MS = 1_000;
const TICK_MS = 250;
const ETA_MS = 60_000;

function envMs(ctx: Ctx, name: string, fallback: number): number {
  const raw = Number(ctx.env.get(name));
  return Number.isFinite(raw) && raw >= 0 ? raw : fallback;
}

export async function supervise(
  ctx: Ctx,
  project: Project,
  recordPath: string,
  record: DispatchRecord,
  info: DetachedInfo,
  files: RunFiles,
): Promise<Supervised> {
  const run = new SupervisedRun(ctx, project, recordPath, record, info, files);
  // Listen before anything else: a SIGTERM during start-up must still end in the final writes.
  const unlisten = listenForSignals((name) => run.requestStop("signal", name));
  try {
    await files.takeLease();
  } catch (error) {
    unlisten();
    throw error;
  }
  await run.announce();
  try {
    return await run.live();
  } finally {
    unlisten();
  }
}

/** One run from the lease to the final writes; the vendor's timers end with the vendor. */
class SupervisedRun {
  readonly state: RunState;
  readonly status: (phase: RunStatus["state"]) => RunStatus;
  private readonly shownRecord: string;
  private child: Deno.ChildProcess | undefined;
  private exited = false;
  private stopper: ((reason: StopReason, signal?: string) => void) | undefined;
  private readonly timers: Array<() => void> = [];
  private lastBeat = 0;
  private beating = false;
  private killing = false;

  constructor(
    private readonly ctx: Ctx,
    private readonly project: Project,
    private readonly recordPath: string,
    private readonly record: DispatchRecord,
    private readonly info: DetachedInfo,
    private readonly files: RunFiles,
  ) {
    const startedAt = ctx.now();
    this.state = {
      startedAt,
      deadline: new Date(startedAt.getTime() + info.timeoutMs),
      childPid: null,
      outputBytes: 0,
      lastOutputAt: null,
      stopReason: null,
      stopSignal: null,
      spawnError: null,
      exitCode: null,
      signal: null,
      recordEnded: false,
      report: null,
      stderrTail: "",
      stderrAuth: false,
    };
    this.shownRecord = recordPath.slice(project.root.length + 1).replaceAll("\\", "/");
    this.status = (phase) => this.statusAt(phase);
  }

  private statusAt(phase: RunStatus["state"]): RunStatus {
    const { state, info } = this;
    return {
      version: 1,
      state: phase,
      recordPath: this.shownRecord,
      vendor: info.vendor,
      supervisorPid: Deno.pid,
      childPid: state.childPid,
      startedAt: isoTime(state.startedAt),
      updatedAt: isoTime(this.ctx.now()),
      lastOutputAt: state.lastOutputAt ? isoTime(state.lastOutputAt) : null,
      outputBytes: state.outputBytes,
      timeoutMs: info.timeoutMs,
      deadlineAt: isoTime(state.deadline),
      stopReason: state.stopReason,
      exitCode: state.exitCode,
      signal: state.signal,
      outcome: null,
      endedAt: null,
    };
  }

  /** Stops the vendor when it runs; before that, remembers why for the start to honour. */
  requestStop(reason: StopReason, signal?: string): void {
    if (this.stopper) return this.stopper(reason, signal);
    this.state.stopReason ??= reason;
    this.state.stopSignal ??= signal ?? null;
  }

  async announce(): Promise<void> {
    await this.files.writeStatus(this.status("starting"));
    await this.files.writeOwner({
      sessionId: this.info.owner.sessionId,
      callerId: this.info.owner.callerId,
      supervisorPid: Deno.pid,
      recordPath: this.shownRecord,
      startedAt: isoTime(this.state.startedAt),
    });
  }

  async live(): Promise<Supervised> {
    try {
      await this.files.openLog();
      const child = await this.startVendor();
      if (!child) return await this.finish(this.state.stopReason ? "exited" : "spawn-failed");
      await this.files.writeStatus(this.status("running"));
      return await this.watch(child);
    } catch (error) {
      // A fault in the supervisor itself: stop the vendor and still close the books.
      if (this.child && !this.exited) kill(this.child, "SIGKILL");
      this.state.spawnError = `supervisor error: ${(error as Error)?.message ?? String(error)}`;
      return await this.finish("crashed");
    } finally {
      for (const clear of this.timers) clear();
    }
  }

  private finish(how: "spawn-failed" | "exited" | "crashed"): Promise<Supervised> {
    return finishRun(this.ctx, this.recordPath, this.files, this.state, this.status, how);
  }

  /** The vendor process, or undefined (with the reason in state) when it must not or cannot start. */
  private async startVendor(): Promise<Deno.ChildProcess | undefined> {
    const { record, state } = this;
    const prompt = record.brief === "pointer"
      ? pointerPrompt(recordFileOf(this.recordPath))
      : record.prompt;
    const vendor = this.info.vendor as Vendor;
    const command = await vendorCommand(vendor, this.ctx.env);
    if (prompt.includes(HISTORY_BOUNDARY)) {
      state.spawnError = "refused: the prompt carries the orchestrator's session-history marker";
    } else if (!command) {
      state.spawnError = `${vendor} is not on PATH any more`;
    } else if (!state.stopReason) {
      const sliceDir = sliceWorkDir(record.worktree);
      const call = invocation(vendor, prompt, {
        permissions: this.info.permissions ?? DEFAULT_VENDOR_PERMISSIONS,
        runDir: this.files.dir,
        writable: sliceDir ? [this.project.layout.peaks] : [],
        model: this.info.model,
        effort: this.info.effort,
      });
      try {
        for (const [name, text] of Object.entries(call.files)) {
          await writeFileAtomic(join(this.files.dir, name), text);
        }
        this.child = new Deno.Command(command, {
          args: call.args,
          // An isolated slice's vendor runs in the slice's own worktree.
          cwd: sliceDir ?? this.project.root,
          env: { ...call.env, PEAKS_SESSION_ID: record.sessionId },
          stdin: call.stdin === null ? "null" : "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
      } catch (error) {
        state.spawnError = `could not start ${vendor}: ${(error as Error).message}`;
      }
      if (this.child) {
        state.childPid = this.child.pid;
        if (call.stdin !== null) feed(this.child, call.stdin);
      }
    }
    return this.child;
  }

  /** Copies the output, beats and polls until the vendor exits, then the final writes. */
  private async watch(running: Deno.ChildProcess): Promise<Supervised> {
    const { ctx, state, info } = this;
    this.stopper = (reason, signal) => this.stop(running, reason, signal);
    // A signal that came while the vendor was starting applies now.
    if (state.stopReason) this.stop(running, state.stopReason);
    else this.beat(`started ${info.vendor} (pid ${running.pid})`);
    this.startTimers(running);
    const onChunk = (chunk: Uint8Array) => {
      state.outputBytes += chunk.length;
      state.lastOutputAt = ctx.now();
      if (Date.now() - this.lastBeat >= MIN_BEAT_MS) this.beat(outputNote(info.vendor, state));
      return this.files.appendLog(chunk);
    };
    const output = new VendorOutput(info.vendor as Vendor);
    const readers = [
      pump(running.stdout, (chunk) => {
        output.stdout(chunk);
        return onChunk(chunk);
      }),
      pump(running.stderr, (chunk) => {
        output.stderr(chunk);
        return onChunk(chunk);
      }),
    ];
    const exit = await running.status;
    this.exited = true;
    state.exitCode = exit.signal === null ? exit.code : null;
    state.signal = exit.signal;
    for (const clear of this.timers.splice(0)) clear();
    // Grandchildren may keep the pipes open after the vendor exits: drain for a bounded time only.
    await drain(readers, envMs(ctx, "PEAKS_DETACHED_DRAIN_MS", 2_000));
    state.report = output.report();
    state.stderrTail = output.stderrTail();
    state.stderrAuth = output.stderrMentionsAuth();
    while (this.beating) await sleep(20);
    return await this.finish("exited");
  }

  /** The timeout, and a tick that polls for a stop request, a vanished record and silence. */
  private startTimers(running: Deno.ChildProcess): void {
    const timeout = after(this.info.timeoutMs);
    timeout.done.then(() => this.stop(running, "timeout"));
    this.timers.push(() => timeout.cancel());
    const keepAlive = this.record.heartbeatIntervalSec * 1000;
    const stopTick = every(TICK_MS, () => {
      (async () => {
        if (await this.files.stopRequested()) this.stop(running, "cancelled");
        else if (!(await exists(this.recordPath))) this.stop(running, "record-missing");
        if (Date.now() - this.lastBeat >= keepAlive) {
          this.beat(silentNote(this.state, this.ctx.now()));
        }
      })().catch(() => {});
    });
    this.timers.push(stopTick);
  }

  /** One beat at a time; a beat that finds the record gone or cancelled stops the vendor. */
  private beat(note: string): void {
    if (this.beating || this.state.recordEnded) return;
    this.beating = true;
    this.lastBeat = Date.now();
    const running = this.child!;
    beatRecord(this.ctx, this.recordPath, this.state, note).then((verdict) => {
      if (verdict === "missing") this.stop(running, "record-missing");
      else if (verdict === "cancelled") this.stop(running, "cancelled");
    }).finally(() => {
      this.beating = false;
      this.files.writeStatus(this.status(this.state.stopReason ? "stopping" : "running"))
        .catch(() => {});
    });
  }

  /** SIGTERM, then SIGKILL after the grace period; the first reason wins. */
  private stop(running: Deno.ChildProcess, reason: StopReason, signal?: string): void {
    if (this.killing) return;
    this.killing = true;
    this.state.stopReason ??= reason;
    this.state.stopSignal ??= signal ?? null;
    this.files.writeStatus(this.status("stopping")).catch(() => {});
    kill(running, "SIGTERM");
    const grace = envMs(this.ctx, "PEAKS_DETACHED_KILL_GRACE_MS", 5_000);
    const hard = after(grace);
    hard.done.then(() => kill(running, "SIGKILL"));
    this.timers.push(() => hard.cancel());
  }
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function outputNote(vendor: string, state: RunState): string {
  return `${vendor} output ${kib(state.outputBytes)}`;
}

function silentNote(state: RunState, now: Date): string {
  const since = state.lastOutputAt ?? state.startedAt;
  return `no output for ${Math.round((now.getTime() - since.getTime()) / 1000)} s`;
}

/** Progress grows with time towards 95 % (half way after about a minute); 100 % only at the end. */
export function progressAt(startedAt: Date, now: Date): number {
  const elapsed = Math.max(0, now.getTime() - startedAt.getTime());
  return Math.min(95, 5 + Math.floor((90 * elapsed) / (elapsed + ETA_MS)));
}

type BeatVerdict = "ok" | "missing" | "cancelled" | "ended";

/** One running beat through the same locked update the heartbeat command uses. */
async function beatRecord(
  ctx: Ctx,
  path: string,
  state: RunState,
  note: string,
): Promise<BeatVerdict> {
  if (!(await exists(path))) return "missing";
  try {
    const verdict = await updateRecord<BeatVerdict>(path, (record) => {
      if (!record) return { result: "missing" };
      if (isTerminal(record.status)) {
        return { result: record.status === "cancelled" ? "cancelled" : "ended" };
      }
      const now = ctx.now();
      const { next } = applyBeat(record, {
        status: "running",
        progress: progressAt(state.startedAt, now),
        note: note.slice(0, 200),
        stage: null,
      }, now);
      return { value: next, result: "ok" };
    });
    if (verdict === "ended") state.recordEnded = true;
    return verdict;
  } catch {
    return "ok";
  }
}
