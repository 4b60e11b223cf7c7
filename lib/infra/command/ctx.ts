/** What a command may touch of the outside world; the kernel builds it, tests fake it. */
export interface Output {
  /** Writes text; a closed pipe is ignored, never an error. */
  write(text: string): Promise<void>;
  readonly isTerminal: boolean;
}

export interface Input {
  /**
   * Reads all of stdin as UTF-8. Returns undefined when stdin is a terminal,
   * or when nothing arrives within `timeoutMs` (when given).
   */
  readAll(options?: { timeoutMs?: number; maxBytes?: number }): Promise<string | undefined>;
  readonly isTerminal: boolean;
}

export interface Env {
  /** Reads a variable; one the binary may not read is reported as unset. */
  get(name: string): string | undefined;
}

export interface GlobalFlags {
  project?: string;
  json: boolean;
  pretty: boolean;
}

export interface Ctx {
  /** The working directory; "" when it no longer exists (resolveProject reports CWD_NOT_FOUND). */
  cwd: string;
  env: Env;
  now(): Date;
  stdout: Output;
  stderr: Output;
  stdin: Input;
  global: GlobalFlags;
  /** Path of the program to re-run for child `peaks` processes (supervisor, demo). */
  selfCommand(): string[];
}
