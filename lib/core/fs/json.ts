import type { z } from "zod";
import { isNotFound, PeaksError } from "../errors.ts";
import { writeJsonAtomic } from "./files.ts";
import { withLock } from "./lock.ts";

export interface ReadOptions {
  /** What the file is, for the error message ("dispatch record", "presence"). */
  what: string;
  /** Commands that repair or replace the file, offered as nextActions. */
  repair?: string[];
}

export function unreadable(path: string, options: ReadOptions, reason: string): PeaksError {
  const nextActions = options.repair ?? [];
  return new PeaksError(
    "RECORD_UNREADABLE",
    `The ${options.what} at ${path} is unreadable (${reason}).${
      nextActions.length ? ` Repair it with: ${nextActions[0]}` : ""
    }`,
    { data: { path, reason }, nextActions },
  );
}

/** Reads and parses JSON; undefined when the file does not exist. */
export async function readJsonFile(path: string, options: ReadOptions): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    if (error instanceof Deno.errors.IsADirectory) {
      throw unreadable(path, options, "it is a directory");
    }
    throw error;
  }
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
export async function readValidated<S extends z.ZodType>(
  path: string,
  schema: S,
  options: ReadOptions,
): Promise<z.output<S> | undefined> {
  const raw = await readJsonFile(path, options);
  if (raw === undefined) return undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw unreadable(path, options, `does not match its schema: ${describeIssues(parsed.error)}`);
  }
  return parsed.data;
}

/**
 * Locked read-modify-write: reads the current value (undefined when absent),
 * lets `update` compute the next one, validates and writes it atomically.
 * Returning `undefined` from `update` leaves the file untouched.
 */
export function updateJson<S extends z.ZodType, R = void>(
  path: string,
  schema: S,
  options: ReadOptions,
  update: (
    current: z.output<S> | undefined,
  ) => Promise<{ value?: z.input<S>; result: R }> | { value?: z.input<S>; result: R },
): Promise<R> {
  return withLock(path, async () => {
    const current = await readValidated(path, schema, options);
    const { value, result } = await update(current);
    if (value !== undefined) {
      const checked = schema.safeParse(value);
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
  });
}
