/**
 * The ways a detached dispatch says no, each with runnable re-runs: no vendor
 * installed, a prompt too large for a vendor that takes it as an argument,
 * and the record marked failed when the run could not start after all.
 */
import { formatDuration } from "../../cli/spec.ts";
import type { Ctx } from "../../core/ctx.ts";
import { gateError, PeaksError } from "../../core/errors.ts";
import { type DispatchRecord, RecordFileSchema, recordReadOptions } from "../../core/records.ts";
import { isTerminal } from "../../core/record_names.ts";
import { commandLine } from "../../core/shell.ts";
import { updateJson } from "../../core/store.ts";
import { type Vendor, VENDORS } from "../../core/vendors.ts";
import { type Replay, replayPlan } from "../replay.ts";
import type { DetachedDispatchFlags, DetachedInput } from "./input.ts";
import { DEFAULT_MAX_CONCURRENT, DEFAULT_TIMEOUT_MS } from "./flags.ts";
import { VENDOR_CLI } from "./vendor_cli.ts";

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
  input: DetachedInput,
  replay: Replay,
  extra: string[],
): Promise<string> {
  const plan = replayPlan(ctx, input.project, replay, input.prompt);
  await plan.save();
  return commandLine([
    ...plan.words,
    ...(input.flags.ide === undefined ? [] : ["--ide", input.flags.ide]),
    ...extra,
    "--project",
    input.project.root,
  ]);
}

export async function vendorNotFound(
  ctx: Ctx,
  input: DetachedInput,
  installed: Vendor[],
): Promise<PeaksError> {
  const requested = input.flags.vendor ?? null;
  const inProcess = input.ide.inProcess
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
  input: DetachedInput,
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

/** Marks a record that never got a running supervisor as failed. */
export async function failRecord(path: string, error: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await updateJson(path, RecordFileSchema, recordReadOptions(path), (current) => {
    const record = current as DispatchRecord | undefined;
    if (!record || isTerminal(record.status)) return { result: undefined };
    const next: DispatchRecord = {
      ...record,
      status: "failed",
      outcome: "failed",
      completedAt: at,
      updatedAt: at,
      error,
    };
    return { value: next, result: undefined };
  }).catch(() => undefined);
}
