/**
 * IDE_NOT_SUPPORTED: the host has no in-process sub-agent tool peaks knows
 * (its file in lib/hosts declares none). The way forward is the same dispatch as a
 * detached process through an installed vendor CLI, or doing the role's
 * work inline. The replayed command reads the prompt from a file, so a
 * prompt that came through stdin is saved first.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { type Replay, replayPlan } from "./replay.ts";
import { gateError, type PeaksError } from "../infra/errors.ts";
import type { IdeEntry } from "../hosts/registry.ts";
import type { Project } from "../workspace/project.ts";
import { commandLine, projectArgs } from "../infra/shell.ts";
import { installedVendors, type Vendor, VENDORS } from "../hosts/vendors.ts";
import type { PromptInput } from "./prompt_input.ts";

/** The host's own vendor when installed (codex in Codex), else the first installed one. */
export function pickVendor(ide: IdeEntry, installed: Vendor[]): Vendor | undefined {
  const own = VENDORS.find((v) => v === ide.vendor);
  return own && installed.includes(own) ? own : installed[0];
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
  const { words, promptFile, save } = replayPlan(ctx, project, replay, prompt);
  await save();
  const nextActions = vendor
    ? [
      commandLine([
        ...words,
        "--mode",
        "detached",
        "--vendor",
        vendor,
        ...projectArgs(project.root),
      ]),
    ]
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
