import type { ErrorCode } from "./error_codes.ts";

export type { ErrorCode };

/** Exit codes of the CLI contract: documented in `peaks --help`. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  gate: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface Warning {
  code: ErrorCode;
  message: string;
  [extra: string]: unknown;
}

export interface PeaksErrorOptions {
  exit?: ExitCode;
  data?: Record<string, unknown>;
  nextActions?: string[];
  instructions?: string[];
  warnings?: Warning[];
  cause?: unknown;
}

/**
 * The one error type commands throw. The kernel turns it into the failure
 * envelope; anything else that escapes a command is reported as INTERNAL_ERROR.
 */
export class PeaksError extends Error {
  readonly code: ErrorCode;
  readonly exit: ExitCode;
  readonly data: Record<string, unknown>;
  readonly nextActions: string[];
  readonly instructions: string[];
  readonly warnings: Warning[];

  constructor(code: ErrorCode, message: string, options: PeaksErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "PeaksError";
    this.code = code;
    this.exit = options.exit ?? EXIT.failed;
    this.data = options.data ?? {};
    this.nextActions = options.nextActions ?? [];
    this.instructions = options.instructions ?? [];
    this.warnings = options.warnings ?? [];
  }
}

export function usageError(
  code: ErrorCode,
  message: string,
  options: Omit<PeaksErrorOptions, "exit"> = {},
): PeaksError {
  return new PeaksError(code, message, { ...options, exit: EXIT.usage });
}

export function gateError(
  code: ErrorCode,
  message: string,
  options: Omit<PeaksErrorOptions, "exit"> = {},
): PeaksError {
  return new PeaksError(code, message, { ...options, exit: EXIT.gate });
}

export function isNotFound(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound;
}

export function isAlreadyExists(error: unknown): boolean {
  return error instanceof Deno.errors.AlreadyExists;
}
