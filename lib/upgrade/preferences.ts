/**
 * The preferences part of the 1.x -> 2.0 upgrade: `.peaks/preferences.json`
 * is rewritten at schema_version 2.0.0. Every key 2.0 knows moves with its
 * value, nested objects field by field (a 1.x `headroom` with one field 2.0
 * lacks keeps the others); what 2.0 does not take is named in the report and
 * stays in the backup, which is written before the file changes.
 */
import { DEFAULT_PREFERENCES } from "../preferences/preferences.ts";
import { preferencesSchemas } from "../state/preferences.ts";
import { z } from "../infra/zod.ts";
import { withLock } from "../infra/fs/lock.ts";
import { assertWritable } from "../workspace/writable.ts";
import { readIfPresent, writeJsonAtomic } from "../infra/fs/files.ts";
import { backupFile, type Migration, rel, step, type StepReport } from "./steps.ts";

type Checker = { safeParse(v: unknown): { success: boolean } };

export interface MovedKeys {
  next: Record<string, unknown>;
  /** Dotted keys moved with their value. */
  moved: string[];
  /** Dotted keys 2.0 has no place for, or whose value 2.0 does not accept. */
  left: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** The fields of an object schema, or undefined when `schema` is not one (optional unwrapped). */
function objectShape(schema: z.ZodType): Record<string, Checker> | undefined {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() as z.ZodType : schema;
  return inner instanceof z.ZodObject ? inner.shape as Record<string, Checker> : undefined;
}

function moveInto(
  shape: Record<string, Checker>,
  old: Record<string, unknown>,
  prefix: string,
  out: MovedKeys,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(old)) {
    if (!prefix && key === "schema_version") continue;
    const name = `${prefix}${key}`;
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const fields = field && objectShape(field as unknown as z.ZodType);
    if (field && field.safeParse(value).success) {
      kept[key] = value;
      out.moved.push(name);
    } else if (fields && isObject(value)) {
      const part = moveInto(fields, value, `${name}.`, out);
      if (Object.keys(part).length) kept[key] = part;
    } else out.left.push(name);
  }
  return kept;
}

/** The 2.0 preferences a 1.x object becomes, and which keys moved or stayed behind. */
export function movePreferenceKeys(old: Record<string, unknown>): MovedKeys {
  const shape = preferencesSchemas(z).PreferencesSchema.shape as Record<string, Checker>;
  const out: MovedKeys = { next: {}, moved: [], left: [] };
  out.next = { ...DEFAULT_PREFERENCES, ...moveInto(shape, old, "", out) };
  return out;
}

function parseText(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return null;
  }
}

export async function preferencesStep(m: Migration): Promise<StepReport> {
  const path = m.project.layout.preferences;
  const text = await readIfPresent(path);
  const parsed = parseText(text);
  const schema = preferencesSchemas(z).PreferencesSchema;
  if (text !== undefined && schema.safeParse(parsed).success) return step("preferences", m, []);
  const file = rel(m, path);
  const version = DEFAULT_PREFERENCES.schema_version;
  const details: string[] = [];
  let next: Record<string, unknown> = { ...DEFAULT_PREFERENCES };
  if (text === undefined) details.push(`created ${file} with schema_version ${version}`);
  else {
    const backup = await backupFile(m, path);
    const moved = movePreferenceKeys(isObject(parsed) ? parsed : {});
    next = moved.next;
    details.push(`rewrote ${file} as schema_version ${version} (backup ${backup})`);
    details.push(`moved: ${moved.moved.join(", ") || "none"}`);
    if (moved.left.length) {
      details.push(
        `not moved (2.0 has no such key or takes no such value; kept in ${backup}): ${
          moved.left.join(", ")
        }`,
      );
    }
  }
  if (!m.dryRun) {
    await assertWritable(m.project, path, "the preferences file");
    await withLock(path, () => writeJsonAtomic(path, schema.parse(next)));
  }
  return step("preferences", m, details);
}
