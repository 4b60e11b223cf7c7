/**
 * Starts `peaks sub-agent supervise` as a detached process (its own session,
 * stdio closed, unref'd) and waits until it holds its lease, so the caller
 * knows it really runs before answering. The wait is bounded; a supervisor
 * that exits or never takes its lease is a start failure.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { probeLease, runFile } from "./runs.ts";
import { PeaksError } from "../infra/errors.ts";
import { exists } from "../infra/fs/files.ts";
import { sleep } from "../infra/timer.ts";
import { projectArgs } from "../infra/shell.ts";

export interface StartedSupervisor {
  pid: number;
  /** Milliseconds from spawn until the lease was held. */
  readyMs: number;
}

function startupTimeoutMs(ctx: Ctx): number {
  const raw = Number(ctx.env.get("PEAKS_SUPERVISOR_START_TIMEOUT_MS"));
  return Number.isFinite(raw) && raw > 0 ? raw : 15_000;
}

function startFailure(message: string, data: Record<string, unknown>): PeaksError {
  return new PeaksError("SUPERVISOR_START_FAILED", message, { data });
}

export async function startSupervisor(
  ctx: Ctx,
  projectRoot: string,
  recordPath: string,
  runDir: string,
): Promise<StartedSupervisor> {
  const [program, ...prefix] = ctx.selfCommand();
  const started = performance.now();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args: [
        ...prefix,
        "sub-agent",
        "supervise",
        "--record",
        recordPath,
        ...projectArgs(projectRoot),
      ],
      cwd: projectRoot,
      detached: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
  } catch (error) {
    const denied = error instanceof Deno.errors.NotCapable ||
      error instanceof Deno.errors.PermissionDenied;
    throw startFailure(
      denied
        ? `peaks may not start ${program} for the supervisor: the binary runs itself only as \`peaks\` found on PATH (see docs/detached.md).`
        : `Could not start the supervisor (${program}): ${(error as Error).message}`,
      { program },
    );
  }
  child.unref();
  let exited: Deno.CommandStatus | undefined;
  child.status.then((status) => exited = status, () => {});
  const pidPath = runFile(runDir, "pid");
  const deadline = started + startupTimeoutMs(ctx);
  while (true) {
    if ((await probeLease(pidPath)) === "alive") {
      return { pid: child.pid, readyMs: Math.round(performance.now() - started) };
    }
    if (exited) {
      // A vendor that could not start ends the run at once; the supervisor recorded it.
      if (await exists(runFile(runDir, "exit"))) {
        return { pid: child.pid, readyMs: Math.round(performance.now() - started) };
      }
      throw startFailure(
        `The supervisor exited (code ${exited.code}) before it started the vendor.`,
        { code: exited.code, signal: exited.signal },
      );
    }
    if (performance.now() >= deadline) {
      throw startFailure("The supervisor did not start within its start-up time.", {
        timeoutMs: startupTimeoutMs(ctx),
      });
    }
    await sleep(10);
  }
}
