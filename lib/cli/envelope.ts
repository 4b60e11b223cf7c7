import { PeaksError, type Warning } from "../infra/errors.ts";
import { clip, redact, redactDeep } from "../infra/redact.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { escapeJsonForTerminal, safeText } from "../infra/terminal_text.ts";

export interface SuccessEnvelope {
  ok: true;
  command: string;
  data: unknown;
  warnings: Warning[];
  nextActions: string[];
}

export interface FailureEnvelope {
  ok: false;
  command: string;
  code: string;
  message: string;
  data: Record<string, unknown>;
  warnings: Warning[];
  nextActions: string[];
  errorId: string;
}

export function success(
  command: string,
  data: unknown,
  warnings: Warning[] = [],
  nextActions: string[] = [],
): SuccessEnvelope {
  // Warnings are messages like errors: they pass the redactor; data is the caller's answer.
  return { ok: true, command, data, warnings: redactDeep(warnings), nextActions };
}

/** A failure envelope; every string in it passes the redactor. */
export function failure(command: string, error: PeaksError): FailureEnvelope {
  const data = { ...error.data };
  if (error.instructions.length) data.instructions = error.instructions;
  return redactDeep({
    ok: false as const,
    command,
    code: error.code,
    message: error.message,
    data,
    warnings: error.warnings,
    nextActions: error.nextActions,
    errorId: crypto.randomUUID(),
  });
}

/** Anything a command throws that is not a PeaksError, made presentable. */
export function toPeaksError(error: unknown): PeaksError {
  if (error instanceof PeaksError) return error;
  if (error instanceof Deno.errors.NotCapable) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return new PeaksError(
      "PERMISSION_DENIED",
      `peaks is not allowed to do this: ${detail}. The binary runs with a fixed permission set (see peaks doctor).`,
    );
  }
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  if (/os error 30\b|read-only file system/i.test(message)) {
    return new PeaksError("READ_ONLY", `The file system is read-only: ${message}`);
  }
  if (/os error 28\b|no space left/i.test(message)) {
    return new PeaksError("NO_SPACE", `No space left on the device: ${message}`);
  }
  if (error instanceof Deno.errors.PermissionDenied || /os error 13\b/.test(message)) {
    return new PeaksError("ACCESS_DENIED", `The operating system refused access: ${message}`);
  }
  return new PeaksError("INTERNAL_ERROR", `Unexpected error: ${message}`, { cause: error });
}

export async function writeJson(ctx: Ctx, envelope: unknown): Promise<void> {
  const text = ctx.global.pretty ? JSON.stringify(envelope, null, 2) : JSON.stringify(envelope);
  await ctx.stdout.write(`${escapeJsonForTerminal(text)}\n`);
}

export async function writeHumanFailure(ctx: Ctx, envelope: FailureEnvelope): Promise<void> {
  const lines = [`error ${envelope.code}: ${envelope.message}`];
  const instructions = envelope.data.instructions;
  if (Array.isArray(instructions)) { for (const line of instructions) lines.push(`  ${line}`); }
  for (const warning of envelope.warnings) {
    lines.push(`warning ${warning.code}: ${warning.message}`);
  }
  if (envelope.nextActions.length) {
    lines.push("next:");
    for (const action of envelope.nextActions) lines.push(`  ${action}`);
  }
  await ctx.stderr.write(`${safeText(lines.join("\n"))}\n`);
}

export async function writeHumanWarnings(ctx: Ctx, warnings: Warning[]): Promise<void> {
  if (!warnings.length) return;
  const text = warnings.map((w) => `warning ${w.code}: ${redact(w.message)}`).join("\n");
  await ctx.stderr.write(`${safeText(text)}\n`);
}

/** A short default rendering of a result's data when a command gives no text. */
export function renderData(data: unknown): string {
  if (data === null || typeof data !== "object") return String(data);
  const lines: string[] = [];
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (value === null || typeof value !== "object") {
      lines.push(`${key}: ${value}`);
    } else if (Array.isArray(value)) {
      lines.push(`${key}: ${value.length} item${value.length === 1 ? "" : "s"}`);
    } else {
      const text = JSON.stringify(value);
      lines.push(`${key}: ${clip(text, 160)}`);
    }
  }
  return lines.join("\n");
}
