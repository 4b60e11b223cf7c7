/**
 * Pieces the host scenarios share: reading peaks' brief out of what a host
 * sent, starting a stand-in for a host inside a sandbox, and waiting for
 * the files a detached run leaves behind. Nothing here asserts timings.
 */
import { assert } from "@std/assert";
import { join } from "../../../lib/infra/std.ts";
import { pollUntil } from "../../support/wait.ts";
import type { HostAdapter } from "./hosts.ts";
import { createSandbox, type Sandbox, type SandboxOptions } from "./sandbox.ts";
import { type Script, type StandIn, startStandIn, type View } from "./standin.ts";

/** Each host run is bounded; a stuck host fails its test instead of hanging the suite. */
export const HOST_TIMEOUT_MS = 180_000;

export interface World extends AsyncDisposable {
  sandbox: Sandbox;
  standIn: StandIn;
  /** The variables that point the host at the stand-in. */
  hostEnv: Record<string, string>;
}

export async function world(
  host: HostAdapter,
  script: Script,
  options: Partial<SandboxOptions> & { extraHosts?: SandboxOptions["hosts"] } = {},
): Promise<World> {
  const sandbox = await createSandbox({
    hosts: [host.id, ...(options.extraHosts ?? [])],
    files: options.files,
  });
  const standIn = await startStandIn(host.family, script);
  const hostEnv = await host.configure(sandbox, standIn);
  return {
    sandbox,
    standIn,
    hostEnv,
    async [Symbol.asyncDispose]() {
      await standIn.close().catch(() => {});
      await sandbox[Symbol.asyncDispose]();
    },
  };
}

/** What the detached prompt tells the sub-agent about itself. */
export interface Brief {
  role: string;
  rid: string;
  record: string;
  runDir: string;
}

export function detachedBrief(view: View): Brief | null {
  const text = `${view.userText}\n${view.system}`;
  const head = text.match(/# Detached sub-agent: (\S+) for (\S+)/);
  const files = text.match(/Record (\S+) \| run folder (\S+)/);
  if (!head || !files) return null;
  return { role: head[1], rid: head[2], record: files[1], runDir: files[2] };
}

/** The return JSON a sub-agent ends with. */
export function returnJson(
  brief: Pick<Brief, "role" | "rid">,
  extra: Record<string, unknown> = {},
) {
  return JSON.stringify({
    role: brief.role,
    rid: brief.rid,
    status: "ok",
    artefacts: [],
    warnings: [],
    blockedReason: null,
    reason: null,
    diffSummary: "added hello.txt",
    ...extra,
  });
}

export function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  deadlineMs = HOST_TIMEOUT_MS,
): Promise<T> {
  return pollUntil(what, probe, deadlineMs, 200);
}

// deno-lint-ignore no-explicit-any
export async function readJson(path: string): Promise<any> {
  return JSON.parse(await Deno.readTextFile(path));
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

export interface DetachedEnd {
  // deno-lint-ignore no-explicit-any
  record: any;
  // deno-lint-ignore no-explicit-any
  exit: any;
  log: string;
  recordPath: string;
  runDir: string;
}

/** `sub-agent dispatch <role> --mode detached …` in the sandbox; waits for the run's end. */
export async function runDetached(
  w: World,
  args: string[],
  env: Record<string, string> = {},
  hostEnv: Record<string, string> = w.hostEnv,
): Promise<DetachedEnd> {
  const init = await w.sandbox.peaks(["workspace", "init", "--json"]);
  assert(init.code === 0, init.stdout + init.stderr);
  const dispatch = await w.sandbox.peaks(
    ["sub-agent", "dispatch", ...args, "--mode", "detached", "--json"],
    { ...hostEnv, ...env },
  );
  assert(dispatch.code === 0, `dispatch failed: ${dispatch.stdout}\n${dispatch.stderr}`);
  const data = dispatch.json.data;
  const recordPath = join(w.sandbox.project, data.dispatchRecordPath);
  const runDir = join(w.sandbox.project, data.detached.runDir);
  await waitFor(
    `the end of the detached run in ${runDir}`,
    async () => await exists(join(runDir, "exit.json")) && !(await exists(join(runDir, "pid"))),
  );
  return {
    record: await readJson(recordPath),
    exit: await readJson(join(runDir, "exit.json")),
    log: await Deno.readTextFile(join(runDir, "log.txt")).catch(() => ""),
    recordPath,
    runDir,
  };
}
