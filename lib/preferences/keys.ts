/**
 * The settable preference keys, derived from the preferences schema so a key
 * added there is settable here with no second list. Dotted keys address
 * nested objects (`headroom.enabled`).
 */
import { z } from "../infra/zod.ts";
import { usageError } from "../infra/errors.ts";
import { printable } from "../infra/ids.ts";
import { type Preferences, preferencesSchemas } from "../state/preferences.ts";
import { describeIssues } from "../infra/fs/json.ts";
import { nearest } from "../infra/command/suggest.ts";

export type KeyKind = "enum" | "boolean" | "string" | "url" | "object" | "other";

export interface PreferenceKey {
  key: string;
  kind: KeyKind;
  schema: z.ZodType;
  /** The closed set of values (enums, booleans); empty for free values. */
  values: string[];
  /** What a valid value looks like, for errors and `get`. */
  expected: string;
}

function unwrap(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional ? unwrap(schema.unwrap() as z.ZodType) : schema;
}

function describe(key: string, schema: z.ZodType): PreferenceKey {
  const def = (schema as unknown as { def: { type: string; format?: string } }).def;
  if (schema instanceof z.ZodEnum) {
    const values = (schema.options as string[]).map(String);
    return { key, kind: "enum", schema, values, expected: `one of ${values.join(", ")}` };
  }
  if (def.type === "boolean") {
    return { key, kind: "boolean", schema, values: ["true", "false"], expected: "true or false" };
  }
  if (def.type === "string" && def.format === "url") {
    return { key, kind: "url", schema, values: [], expected: "an http(s) URL" };
  }
  if (def.type === "string") {
    return { key, kind: "string", schema, values: [], expected: "a string" };
  }
  if (schema instanceof z.ZodObject) {
    const fields = Object.keys(schema.shape).join(", ");
    return {
      key,
      kind: "object",
      schema,
      values: [],
      expected: `a JSON object with keys ${fields}`,
    };
  }
  return { key, kind: "other", schema, values: [], expected: "a JSON value" };
}

function collect(shape: Record<string, z.ZodType>, prefix: string): PreferenceKey[] {
  const keys: PreferenceKey[] = [];
  for (const [name, field] of Object.entries(shape)) {
    if (name === "schema_version") continue;
    const schema = unwrap(field);
    const key = `${prefix}${name}`;
    keys.push(describe(key, schema));
    if (schema instanceof z.ZodObject) {
      keys.push(...collect(schema.shape as Record<string, z.ZodType>, `${key}.`));
    }
  }
  return keys;
}

export const PREFERENCE_KEYS: readonly PreferenceKey[] = collect(
  preferencesSchemas(z).PreferencesSchema.shape as unknown as Record<string, z.ZodType>,
  "",
);

export const KEY_NAMES = PREFERENCE_KEYS.map((entry) => entry.key);

export function findKey(raw: string): PreferenceKey {
  const found = PREFERENCE_KEYS.find((entry) => entry.key === raw);
  if (found) return found;
  const suggestion = nearest(raw, KEY_NAMES);
  throw usageError(
    "UNKNOWN_PREFERENCE_KEY",
    `There is no preference ${JSON.stringify(printable(raw))}.${
      suggestion ? ` Did you mean ${suggestion}?` : ""
    } Keys: ${KEY_NAMES.join(", ")}.`,
    { data: { flag: "key", allowed: KEY_NAMES, suggestion: suggestion ?? null } },
  );
}

/**
 * Reads `--value`: JSON first; for string-like keys a value that is not JSON
 * is taken as the plain string, so `--value opt-in` works unquoted.
 */
export function parseValue(entry: PreferenceKey, raw: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    if (!["enum", "string", "url"].includes(entry.kind)) throw invalidValue(entry, raw, "not JSON");
    value = raw;
  }
  const checked = entry.schema.safeParse(value);
  if (!checked.success) {
    throw invalidValue(
      entry,
      raw,
      entry.values.length ? "not allowed" : describeIssues(checked.error),
    );
  }
  return checked.data;
}

function invalidValue(entry: PreferenceKey, raw: string, why: string) {
  return usageError(
    "INVALID_PREFERENCE_VALUE",
    `--value ${
      JSON.stringify(printable(raw))
    } is not valid for ${entry.key} (${why}): use ${entry.expected}.`,
    { data: { flag: "value", key: entry.key, allowed: entry.values, expected: entry.expected } },
  );
}

type Tree = Record<string, unknown>;

export function getAt(prefs: Preferences, key: string): unknown {
  let node: unknown = prefs;
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Tree)[part];
  }
  return node;
}

/** A copy with `key` set (or removed when `value` is undefined); empty parents are dropped. */
export function withValue(prefs: Preferences, key: string, value: unknown): Preferences {
  const set = (node: Tree, parts: string[]): Tree => {
    const [head, ...rest] = parts;
    const copy: Tree = { ...node };
    if (rest.length === 0) {
      if (value === undefined) delete copy[head];
      else copy[head] = value;
      return copy;
    }
    const child = set((copy[head] as Tree | undefined) ?? {}, rest);
    if (Object.keys(child).length === 0) delete copy[head];
    else copy[head] = child;
    return copy;
  };
  return set(prefs as Tree, key.split(".")) as Preferences;
}
