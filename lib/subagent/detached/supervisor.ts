/**
 * The supervisor's life: take the lease, start the vendor, copy its output
 * chunk by chunk into log.txt, beat the record on output (rate-limited) and
 * while it is silent, stop it on timeout, stop request, a vanished record or
 * a signal (SIGTERM, then SIGKILL after a grace period), and on every way
 * out write the record's outcome, exit.json and the final status.json
 * before removing the pid file last.
 */
import type { Ctx } from "../../core/ctx.ts";
import type { DetachedInfo, RunStatus } from "../../core/detached_runs.ts";
import { applyBeat } from "../../core/heartbeat_update.ts";
import type { Project } from "../../core/project.ts";
import { type DispatchRecord, RecordFileSchema, recordReadOptions } from "../../core/records.ts";
import { isTerminal, recordFileOf } from "../../core/record_names.ts";
import { join } from "../../core/std.ts";
import { updateJson } from "../../core/store.ts";
import { DEFAULT_VENDOR_PERMISSIONS, type Vendor, vendorCommand } from "../../core/vendors.ts";
import { pointerPrompt } from "../tool_call.ts";
import { HISTORY_BOUNDARY } from "./prompt.ts";
import { finishRun, type RunState, type StopReason, type Supervised } from "./finish.ts";
import type { RunFiles } from "./run_files.ts";
import { invocation } from "./vendor_cli.ts";
import { VendorOutput } from "./vendor_output.ts";

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
  const startedAt = ctx.now();
  const state: RunState = {
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
  const shownRecord = recordPath.slice(project.root.length + 1).replaceAll("\\", "/");
  const status = (phase: RunStatus["state"]): RunStatus => ({
    version: 1,
    state: phase,
    recordPath: shownRecord,
    vendor: info.vendor,
    supervisorPid: Deno.pid,
    childPid: state.childPid,
    startedAt: startedAt.toISOString(),
    updatedAt: ctx.now().toISOString(),
    lastOutputAt: state.lastOutputAt?.toISOString() ?? null,
    outputBytes: state.outputBytes,
    timeoutMs: info.timeoutMs,
    deadlineAt: state.deadline.toISOString(),
    stopReason: state.stopReason,
    exitCode: state.exitCode,
    signal: state.signal,
    outcome: null,
    endedAt: null,
  });
  // Listen before anything else: a SIGTERM during start-up must still end in the final writes.
  const cleanups: Array<() => void> = [];
  let stopper: ((reason: StopReason, signal?: string) => void) | undefined;
  const requestStop = (reason: StopReason, signal?: string) => {
    if (stopper) return stopper(reason, signal);
    state.stopReason ??= reason;
    state.stopSignal ??= signal ?? null;
  };
  for (const name of supervisorSignals()) {
    const handler = () => requestStop("signal", name);
    Deno.addSignalListener(name, handler);
    cleanups.push(() => Deno.removeSignalListener(name, handler));
  }
  try {
    await files.takeLease();
  } catch (error) {
    for (const cleanup of cleanups) cleanup();
    throw error;
  }
  await files.writeStatus(status("starting"));
  await files.writeOwner({
    sessionId: info.owner.sessionId,
    callerId: info.owner.callerId,
    supervisorPid: Deno.pid,
    recordPath: shownRecord,
    startedAt: startedAt.toISOString(),
  });

  let child: Deno.ChildProcess | undefined;
  let exited = false;
  // Timers end with the vendor; the signal listeners stay until the final writes are done.
  const timers: Array<() => void> = [];
  try {
    await files.openLog();
    const prompt = record.brief === "pointer"
      ? pointerPrompt(recordFileOf(recordPath))
      : record.prompt;
    const vendor = info.vendor as Vendor;
    const command = await vendorCommand(vendor, ctx.env);
    if (prompt.includes(HISTORY_BOUNDARY)) {
      state.spawnError = "refused: the prompt carries the orchestrator's session-history marker";
    } else if (!command) {
      state.spawnError = `${vendor} is not on PATH any more`;
    } else if (!state.stopReason) {
      const call = invocation(vendor, prompt, {
        permissions: info.permissions ?? DEFAULT_VENDOR_PERMISSIONS,
        runDir: files.dir,
      });
      try {
        for (const [name, text] of Object.entries(call.files)) {
          await Deno.writeTextFile(join(files.dir, name), text);
        }
        child = new Deno.Command(command, {
          args: call.args,
          cwd: project.root,
          env: { ...call.env, PEAKS_SESSION_ID: record.sessionId },
          stdin: call.stdin === null ? "null" : "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
      } catch (error) {
        state.spawnError = `could not start ${vendor}: ${(error as Error).message}`;
      }
      if (child) {
        state.childPid = child.pid;
        if (call.stdin !== null) feed(child, call.stdin);
      }
    }
    if (!child) {
      const how = state.stopReason ? "exited" : "spawn-failed";
      return await finishRun(ctx, recordPath, files, state, status, how);
    }

    await files.writeStatus(status("running"));
    const running = child;
    let lastBeat = 0;
    let beating = false;
    const beat = (note: string) => {
      if (beating || state.recordEnded) return;
      beating = true;
      lastBeat = Date.now();
      beatRecord(ctx, recordPath, state, note).then((verdict) => {
        if (verdict === "missing") stop("record-missing");
        else if (verdict === "cancelled") stop("cancelled");
      }).finally(() => {
        beating = false;
        files.writeStatus(status(state.stopReason ? "stopping" : "running")).catch(() => {});
      });
    };
    const grace = envMs(ctx, "PEAKS_DETACHED_KILL_GRACE_MS", 5_000);
    let killing = false;
    const stop = (reason: StopReason, signal?: string) => {
      if (killing) return;
      killing = true;
      state.stopReason ??= reason;
      state.stopSignal ??= signal ?? null;
      files.writeStatus(status("stopping")).catch(() => {});
      kill(running, "SIGTERM");
      const hard = setTimeout(() => kill(running, "SIGKILL"), grace);
      timers.push(() => clearTimeout(hard));
    };
    stopper = stop;
    // A signal that came while the vendor was starting applies now.
    if (state.stopReason) stop(state.stopReason);
    else beat(`started ${info.vendor} (pid ${running.pid})`);

    const timeout = setTimeout(() => stop("timeout"), info.timeoutMs);
    timers.push(() => clearTimeout(timeout));
    const keepAlive = record.heartbeatIntervalSec * 1000;
    const tick = setInterval(() => {
      (async () => {
        if (await files.stopRequested()) stop("cancelled");
        else if (!(await exists(recordPath))) stop("record-missing");
        if (Date.now() - lastBeat >= keepAlive) beat(silentNote(state, ctx.now()));
      })().catch(() => {});
    }, TICK_MS);
    timers.push(() => clearInterval(tick));

    const onChunk = (chunk: Uint8Array) => {
      state.outputBytes += chunk.length;
      state.lastOutputAt = ctx.now();
      if (Date.now() - lastBeat >= MIN_BEAT_MS) beat(outputNote(info.vendor, state));
      return files.appendLog(chunk);
    };
    const output = new VendorOutput(vendor);
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
    exited = true;
    state.exitCode = exit.signal === null ? exit.code : null;
    state.signal = exit.signal;
    for (const clear of timers.splice(0)) clear();
    // Grandchildren may keep the pipes open after the vendor exits: drain for a bounded time only.
    await drain(readers, envMs(ctx, "PEAKS_DETACHED_DRAIN_MS", 2_000));
    state.report = output.report();
    state.stderrTail = output.stderrTail();
    state.stderrAuth = output.stderrMentionsAuth();
    while (beating) await new Promise((resolve) => setTimeout(resolve, 20));
    return await finishRun(ctx, recordPath, files, state, status, "exited");
  } catch (error) {
    // A fault in the supervisor itself: stop the vendor and still close the books.
    if (child && !exited) kill(child, "SIGKILL");
    state.spawnError = `supervisor error: ${(error as Error)?.message ?? String(error)}`;
    return await finishRun(ctx, recordPath, files, state, status, "crashed");
  } finally {
    for (const clear of timers) clear();
    for (const cleanup of cleanups) cleanup();
  }
}

function supervisorSignals(): Deno.Signal[] {
  return Deno.build.os === "windows" ? ["SIGINT", "SIGBREAK"] : ["SIGTERM", "SIGINT", "SIGHUP"];
}

function kill(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch {
    // already gone
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** Writes the prompt to the vendor's stdin and closes it; a vendor that exits early is fine. */
function feed(child: Deno.ChildProcess, text: string): void {
  const writer = child.stdin.getWriter();
  writer.write(new TextEncoder().encode(text))
    .then(() => writer.close())
    .catch(() => writer.abort().catch(() => {}));
}

interface Pump {
  done: Promise<void>;
  reader: ReadableStreamDefaultReader<Uint8Array>;
}

/** Reads a pipe; each chunk is written before the next is read, so a fast vendor waits for the disk. */
function pump(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => Promise<void>,
): Pump {
  const reader = stream.getReader();
  const done = (async () => {
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        if (value) await onChunk(value);
      }
    } catch {
      // cancelled or broken pipe: whatever arrived is in the log
    }
  })();
  return { done, reader };
}

async function drain(pumps: Pump[], boundMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => timer = setTimeout(resolve, boundMs));
  await Promise.race([Promise.all(pumps.map((p) => p.done)), bound]);
  clearTimeout(timer);
  for (const p of pumps) await p.reader.cancel().catch(() => {});
  await Promise.all(pumps.map((p) => p.done));
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
    const verdict = await updateJson(path, RecordFileSchema, recordReadOptions(path), (current) => {
      const record = current as DispatchRecord | undefined;
      if (!record) return { result: "missing" as BeatVerdict };
      if (isTerminal(record.status)) {
        return { result: (record.status === "cancelled" ? "cancelled" : "ended") as BeatVerdict };
      }
      const now = ctx.now();
      const { next } = applyBeat(record, {
        status: "running",
        progress: progressAt(state.startedAt, now),
        note: note.slice(0, 200),
        stage: null,
      }, now);
      return { value: next, result: "ok" as BeatVerdict };
    });
    if (verdict === "ended") state.recordEnded = true;
    return verdict;
  } catch {
    return "ok";
  }
}
