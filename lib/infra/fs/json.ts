import type { z } from "zod";
import { isNotFound, PeaksError } from "../errors.ts";
import { FileRefused, movePath, readBoundedText, writeJsonAtomic } from "./files.ts";
import { commandLine } from "../shell.ts";
import { withLock } from "./lock.ts";
import { type AnySchema, checkState } from "../shape/lazy.ts";

export interface ReadOptions {
  /** What the file is, for the error message ("dispatch record", "presence"). */
  what: string;
  /** Commands that repair or replace the file, offered as nextActions. */
  repair?: string[];
  /** Bound on the file's size (default READ_MAX_BYTES). */
  maxBytes?: number;
}

export interface UpdateOptions extends ReadOptions {
  /**
   * For files that are rewritten whole (presence, session metadata): an
   * unreadable current file is moved aside to `<path>.corrupt` (its bytes
   * kept) and the update starts from nothing instead of failing.
   */
  replaceUnreadable?: boolean;
  /**
   * The update only computes: it reads nothing else, writes nothing and
   * changes nothing outside the value it returns. When the lock is busy,
   * such an update is rehearsed first (see updateJson).
   */
  pure?: boolean;
}

/** The repair every unreadable file has at least: its bytes kept beside it, out of the way. */
export function quarantineCommand(path: string): string {
  return commandLine(["mv", path, `${path}.corrupt`]);
}

export function unreadable(path: string, options: ReadOptions, reason: string): PeaksError {
  const nextActions = options.repair?.length ? options.repair : [quarantineCommand(path)];
  return new PeaksError(
    "RECORD_UNREADABLE",
    `The ${options.what} at ${path} is unreadable (${reason}).${
      nextActions.length ? ` Repair it with: ${nextActions[0]}` : ""
    }`,
    { data: { path, reason }, nextActions },
  );
}

/**
 * A file the reader was refused, as RECORD_UNREADABLE: a file the OS will not
 * open is repaired by giving its owner the rights back (nothing lost);
 * anything else by the reader's own repair.
 */
export function refusedAsUnreadable(error: FileRefused, options: ReadOptions): PeaksError {
  const repair = error.repair;
  return unreadable(error.path, {
    ...options,
    repair: repair ? [repair, ...(options.repair ?? [])] : options.repair,
  }, error.reason);
}

/** Reads and parses JSON (a bounded read of a regular file); undefined when it does not exist. */
export async function readJsonFile(path: string, options: ReadOptions): Promise<unknown> {
  let text: string | undefined;
  try {
    text = await readBoundedText(path, { maxBytes: options.maxBytes });
  } catch (error) {
    if (error instanceof FileRefused) throw refusedAsUnreadable(error, options);
    if (isNotFound(error)) return undefined;
    throw error;
  }
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw unreadable(path, options, text.trim() === "" ? "the file is empty" : "invalid JSON");
  }
}

export function describeIssues(error: z.ZodError): string {
  return error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : "(root)";
    return `${where}: ${issue.message}`;
  }).join("; ");
}

/** Reads a JSON file checked against `schema`; undefined when it does not exist. */
export async function readValidated<T>(
  path: string,
  schema: AnySchema<T>,
  options: ReadOptions,
): Promise<T | undefined> {
  const raw = await readJsonFile(path, options);
  if (raw === undefined) return undefined;
  const parsed = await checkState(schema, raw);
  if (!parsed.success) {
    throw unreadable(path, options, `does not match its schema: ${describeIssues(parsed.error)}`);
  }
  return parsed.data;
}

async function readCurrent<T>(
  path: string,
  schema: AnySchema<T>,
  options: UpdateOptions,
): Promise<T | undefined> {
  try {
    return await readValidated(path, schema, options);
  } catch (error) {
    if (
      !options.replaceUnreadable || !(error instanceof PeaksError) ||
      error.code !== "RECORD_UNREADABLE"
    ) throw error;
    await movePath(path, `${path}.corrupt`);
    return undefined;
  }
}

/**
 * Locked read-modify-write: reads the current value (undefined when absent),
 * lets `update` compute the next one, validates and writes it atomically.
 * Returning `undefined` from `update` leaves the file untouched.
 *
 * When another process holds the lock, the caller first rehearses the work
 * without it: it reads and checks the current file and, for a `pure` update,
 * computes, checks and serializes the next value, writing nothing. Most of
 * that time is V8 compiling the code on its first run; done while the lock
 * is busy, it leaves the turn with only the work itself, and the writers
 * queued behind get the lock sooner.
 */
export function updateJson<T, R = void>(
  path: string,
  schema: AnySchema<T>,
  options: UpdateOptions,
  update: (
    current: T | undefined,
  ) => Promise<{ value?: T; result: R }> | { value?: T; result: R },
): Promise<R> {
  return withLock(path, async () => {
    const current = await readCurrent(path, schema, options);
    const { value, result } = await update(current);
    if (value !== undefined) {
      const checked = await checkState(schema, value);
      if (!checked.success) {
        throw new PeaksError(
          "INTERNAL_ERROR",
          `Refusing to write an invalid ${options.what} to ${path}: ${
            describeIssues(checked.error)
          }`,
        );
      }
      await writeJsonAtomic(path, checked.data);
    }
    return result;
  }, { whileBusy: () => rehearse(path, schema, options, update) });
}

/** The unlocked dry run of an update (its outcome, errors included, is dropped). */
async function rehearse<T, R>(
  path: string,
  schema: AnySchema<T>,
  options: UpdateOptions,
  update: (current: T | undefined) => Promise<{ value?: T; result: R }> | { value?: T; result: R },
): Promise<void> {
  const current = await readValidated(path, schema, options);
  if (!options.pure) return;
  const { value } = await update(current);
  if (value !== undefined && (await checkState(schema, value)).success) JSON.stringify(value);
}
