/**
 * The ways a detached dispatch says no, each with runnable re-runs: no vendor
 * installed, a prompt too large for a vendor that takes it as an argument,
 * and the record marked failed when the run could not start after all.
 */
import { formatDuration } from "../infra/command/spec.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { gateError, PeaksError } from "../infra/errors.ts";
import { failOpenRecord } from "../record/terminal.ts";
import { commandLine, projectArgs } from "../infra/shell.ts";
import { type Vendor, VENDORS } from "../hosts/vendors.ts";
import { type Replay, replayPlan } from "../dispatch/replay.ts";
import type { DetachedDispatchFlags, RecordInputs } from "./input.ts";
import { DEFAULT_MAX_CONCURRENT, DEFAULT_TIMEOUT_MS } from "./flags.ts";
import { VENDOR_CLI } from "./vendor_cli.ts";
import { isoTime } from "../infra/ids.ts";

export function modeWords(vendor: Vendor, flags: DetachedDispatchFlags): string[] {
  return [
    "--mode",
    "detached",
    "--vendor",
    vendor,
    ...(flags.timeout === DEFAULT_TIMEOUT_MS ? [] : ["--timeout", formatDuration(flags.timeout)]),
    ...(flags["max-concurrent"] === DEFAULT_MAX_CONCURRENT
      ? []
      : ["--max-concurrent", String(flags["max-concurrent"])]),
    ...(flags["vendor-permissions"] ? ["--vendor-permissions", flags["vendor-permissions"]] : []),
  ];
}

/** The same dispatch as a command line (prompt from a file) with `extra` words added. */
export async function rerunWords(
  ctx: Ctx,
  input: RecordInputs,
  replay: Replay,
  extra: string[],
): Promise<string> {
  const plan = replayPlan(ctx, input.project, replay, input.prompt);
  await plan.save();
  return commandLine([
    ...plan.words,
    ...(input.flags.ide === undefined ? [] : ["--ide", input.flags.ide]),
    ...extra,
    ...projectArgs(input.project.root),
  ]);
}

export async function vendorNotFound(
  ctx: Ctx,
  input: RecordInputs,
  installed: Vendor[],
): Promise<PeaksError> {
  const requested = input.flags.vendor ?? null;
  const inProcess = input.ide.subAgent
    ? [await rerunWords(ctx, input, { ...input.replay, modeWords: [] }, [])]
    : [];
  return new PeaksError(
    "VENDOR_NOT_FOUND",
    `No vendor CLI for a detached run is installed: none of ${VENDORS.join(", ")} is on PATH${
      requested ? ` (asked for ${requested})` : ""
    }.`,
    {
      data: { requested, installed, searched: [...VENDORS] },
      nextActions: inProcess,
      instructions: [
        `Install one of ${
          VENDORS.join(", ")
        } so that it is on PATH, then dispatch again with --mode detached.`,
        inProcess.length
          ? `Or run the sub-agent in-process in ${input.ide.id} with the command in nextActions.`
          : `Or do the ${input.runtime.role} work inline yourself in this session.`,
      ],
    },
  );
}

export async function promptTooLargeForVendor(
  ctx: Ctx,
  input: RecordInputs,
  replay: Replay,
  vendor: Vendor,
  bytes: number,
  installed: Vendor[],
): Promise<PeaksError> {
  const cap = VENDOR_CLI[vendor].argvCap;
  const pointer = await rerunWords(ctx, input, { ...replay, brief: "pointer" }, []);
  const readers = installed.filter((v) => VENDOR_CLI[v].input === "stdin");
  const switched = readers.length
    ? [
      await rerunWords(ctx, input, {
        ...replay,
        modeWords: modeWords(readers[0], input.flags),
      }, []),
    ]
    : [];
  return gateError(
    "PROMPT_TOO_LARGE",
    `The detached prompt is ${bytes} bytes; ${vendor} takes its prompt as one command-line argument, capped at ${cap} bytes.`,
    {
      data: { vendor, promptSize: bytes, cap, limit: "vendor-argument" },
      nextActions: [pointer, ...switched],
      instructions: [
        `--brief pointer gives ${vendor} a one-line instruction to read the full prompt with \`peaks sub-agent brief\`, so the argument stays small.`,
        ...(readers.length
          ? [`${readers[0]} reads its prompt from stdin, which has no such cap.`]
          : []),
        "Or shorten the task: point at files instead of pasting them.",
      ],
    },
  );
}

/** Marks a record that never got a running supervisor as failed; failing to is not the refusal's concern. */
export async function failRecord(path: string, error: string, now: Date): Promise<void> {
  await failOpenRecord(path, error, isoTime(now)).catch(() => undefined);
}
