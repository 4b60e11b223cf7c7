/**
 * IDE_NOT_SUPPORTED: the host has no in-process sub-agent tool (Codex,
 * Gemini CLI, OpenCode, …). The way forward is the same dispatch as a
 * detached process through an installed vendor CLI, or doing the role's
 * work inline. The replayed command reads the prompt from a file, so a
 * prompt that came through stdin is saved first.
 */
import type { Ctx } from "../core/ctx.ts";
import { gateError, type PeaksError } from "../core/errors.ts";
import type { IdeEntry } from "../core/ide.ts";
import { fileTimestamp } from "../core/ids.ts";
import { displayPath } from "../core/paths.ts";
import type { Project } from "../core/project.ts";
import { roleFileName } from "../core/record_names.ts";
import { commandLine } from "../core/shell.ts";
import { join } from "../core/std.ts";
import { installedVendors, type Vendor, VENDORS } from "../core/vendors.ts";
import { writeFileAtomic } from "../core/atomic.ts";
import type { PromptInput } from "./prompt_input.ts";

export interface Replay {
  role: string;
  sessionId: string;
  requestId?: string;
  batchId?: string;
  brief?: string;
  heartbeatInterval?: number;
  writeArtifacts: string[];
  graphNode?: string;
  workflowId?: string;
}

/** The host's own vendor when installed (codex in Codex), else the first installed one. */
export function pickVendor(ide: IdeEntry, installed: Vendor[]): Vendor | undefined {
  const own = VENDORS.find((v) => ide.id.startsWith(v));
  return own && installed.includes(own) ? own : installed[0];
}

async function promptFileFor(
  ctx: Ctx,
  project: Project,
  replay: Replay,
  prompt: PromptInput,
): Promise<string> {
  if (prompt.file) return displayPath(project.root, prompt.file);
  const name = `${replay.requestId ?? "adhoc"}-${roleFileName(replay.role)}-${
    fileTimestamp(ctx.now())
  }.md`;
  const path = join(project.layout.promptsDir(replay.sessionId), name);
  await writeFileAtomic(path, prompt.text);
  return displayPath(project.root, path);
}

export async function ideNotSupported(
  ctx: Ctx,
  project: Project,
  ide: IdeEntry,
  replay: Replay,
  prompt: PromptInput,
): Promise<PeaksError> {
  const installed = await installedVendors(ctx.env);
  const vendor = pickVendor(ide, installed);
  const promptFile = await promptFileFor(ctx, project, replay, prompt);
  const words = ["peaks", "sub-agent", "dispatch", replay.role, "--prompt-file", promptFile];
  const optional: Array<[string, string | number | undefined]> = [
    ["--request-id", replay.requestId],
    ["--batch-id", replay.batchId],
    ["--brief", replay.brief],
    ["--heartbeat-interval", replay.heartbeatInterval],
    ["--graph-node", replay.graphNode],
    ["--workflow-id", replay.workflowId],
  ];
  for (const [flag, value] of optional) if (value !== undefined) words.push(flag, String(value));
  for (const path of replay.writeArtifacts) words.push("--write-artifact", path);
  words.push("--session-id", replay.sessionId);
  const nextActions = vendor
    ? [commandLine([...words, "--mode", "detached", "--vendor", vendor, "--project", project.root])]
    : [];
  const instructions = [
    `${ide.id} has no in-process sub-agent tool, so peaks cannot hand you a tool call for it.`,
    vendor
      ? `Run the command in nextActions: it starts the ${replay.role} sub-agent as a separate ${vendor} process.`
      : `No vendor CLI (${
        VENDORS.join(", ")
      }) is on PATH for a detached run; install one to run sub-agents as separate processes.`,
    `Or do the ${replay.role} work inline yourself in this session, one role after another.`,
  ];
  return gateError(
    "IDE_NOT_SUPPORTED",
    `peaks sub-agent dispatch cannot run in-process in ${ide.id}: it has no sub-agent tool.`,
    {
      data: {
        ide: ide.id,
        role: replay.role,
        installedVendors: installed,
        vendor: vendor ?? null,
        promptFile,
      },
      nextActions,
      instructions,
    },
  );
}
