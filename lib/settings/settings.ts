/**
 * Edits of Claude Code's settings.json that keep every other byte (comments,
 * order, indentation) as the user wrote it. jsonc-parser is loaded only here.
 */
import {
  applyEdits,
  findNodeAtLocation,
  modify,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import type { ParseError } from "jsonc-parser";
import { isNotFound, PeaksError } from "../infra/errors.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { resolveProject } from "../workspace/project.ts";
import { guardPath } from "../infra/fs/guard.ts";
import { join } from "../infra/std.ts";
import { writeFileAtomic } from "../infra/fs/files.ts";

export interface SettingsDocument {
  path: string;
  /** The file's text, or undefined when it does not exist (or is blank). */
  text: string | undefined;
  /** The parsed value of a top-level key, undefined when absent. */
  get(key: string): unknown;
  /** The bytes to write for an edited `text`, in the file's own encoding. */
  encode(text: string): Uint8Array;
}

/**
 * The file's text with every byte accounted for: a UTF-8 byte-order mark is set aside and put back
 * on write; a file that is not valid UTF-8 (a Latin-1 byte in a comment) is read one character per
 * byte and written back the same way, so bytes peaks did not edit come back as they were.
 */
function decodeSettings(bytes: Uint8Array): { text: string; encode(text: string): Uint8Array } {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
    ? bytes.slice(0, 3)
    : null;
  const body = bom ? bytes.subarray(3) : bytes;
  let text: string;
  let encode: (text: string) => Uint8Array;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
    encode = (edited) => new TextEncoder().encode(edited);
  } catch {
    text = Array.from(body, (b) => String.fromCharCode(b)).join("");
    encode = (edited) => Uint8Array.from(edited, (c) => c.charCodeAt(0) & 0xff);
  }
  if (!bom) return { text, encode };
  return {
    text,
    encode: (edited) => {
      const out = encode(edited);
      const whole = new Uint8Array(bom.length + out.length);
      whole.set(bom);
      whole.set(out, bom.length);
      return whole;
    },
  };
}

export async function readSettings(path: string): Promise<SettingsDocument> {
  let text: string | undefined;
  let encode: (edited: string) => Uint8Array = (edited) => new TextEncoder().encode(edited);
  try {
    const read = decodeSettings(await Deno.readFile(path));
    text = read.text;
    encode = read.encode;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (text !== undefined && text.trim() === "") text = undefined;
  if (text === undefined) return { path, text, get: () => undefined, encode };
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || !tree) {
    const first = errors[0];
    const where = first ? ` at offset ${first.offset} (${printParseErrorCode(first.error)})` : "";
    throw new PeaksError(
      "SETTINGS_INVALID",
      `${path} is not valid JSON${where}; fix it by hand, peaks will not rewrite it.`,
      { data: { path } },
    );
  }
  if (tree.type !== "object") {
    throw new PeaksError(
      "SETTINGS_INVALID",
      `${path} must hold a JSON object at the top level (found ${tree.type}); peaks will not rewrite it.`,
      { data: { path } },
    );
  }
  const values = new Map<string, unknown>();
  for (const property of tree.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (keyNode && valueNode) values.set(String(keyNode.value), nodeValue(valueNode));
  }
  return { path, text, get: (key) => values.get(key), encode };
}

type Node = NonNullable<ReturnType<typeof parseTree>>;

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (keyNode && valueNode) out[String(keyNode.value)] = nodeValue(valueNode);
      }
      return out;
    }
    case "array":
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

interface Layout {
  eol: string;
  /** One level of indentation. */
  unit: string;
}

function layoutOf(text: string): Layout {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  return { eol, unit: indent.startsWith("\t") ? "\t" : indent };
}

const indentOf = (text: string, offset: number) =>
  /^[ \t]*/.exec(text.slice(text.lastIndexOf("\n", offset - 1) + 1))![0];

/**
 * One edit at `path`, its text laid out like its neighbours: a container written on one line gets a
 * one-line item, one written over several lines gets the item on a line of its own at its siblings'
 * indentation. Nothing outside the edit is touched (jsonc-parser's own formatter re-lays whole
 * lines, rewriting a neighbour's bytes).
 */
function edit(text: string, path: Array<string | number>, value: unknown, insert: boolean): string {
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const parent = tree && findNodeAtLocation(tree, path.slice(0, -1));
  const at = path.at(-1);
  if (value === undefined && typeof at === "number" && parent?.children?.[at]) {
    return removeItem(text, parent.children, at);
  }
  const [change] = modify(text, path, value, { isArrayInsertion: insert });
  if (!change) return text;
  if (value === undefined) return applyEdits(text, [change]);
  const { eol, unit } = layoutOf(text);
  const span = parent ? text.slice(parent.offset, parent.offset + parent.length) : "";
  const first = parent?.children?.[0];
  const key = typeof path.at(-1) === "string" ? `${JSON.stringify(path.at(-1))}: ` : "";
  let content: string;
  if (change.length > 0 && !change.content.startsWith(",") && !change.content.endsWith(",")) {
    // A value replaced in place, at the indentation of the line it is on.
    content = span.includes("\n")
      ? JSON.stringify(value, null, unit).split("\n").join(eol + indentOf(text, change.offset))
      : JSON.stringify(value);
  } else if (!parent || !span.includes("\n")) {
    content = change.content.replace(/^,/, ", ").replace(/,$/, ", ");
  } else {
    const indent = first ? indentOf(text, first.offset) : indentOf(text, parent.offset) + unit;
    const item = `${key}${JSON.stringify(value, null, unit).split("\n").join(eol + indent)}`;
    content = change.content.startsWith(",")
      ? `,${eol}${indent}${item}`
      : change.content.endsWith(",")
      ? `${item},${eol}${indent}`
      : `${eol}${indent}${item}`;
  }
  return applyEdits(text, [{ ...change, content }]);
}

/** An array item removed with the separator before it (after it, for the first of several). */
function removeItem(text: string, items: Node[], index: number): string {
  const item = items[index];
  const [from, to] = index > 0
    ? [items[index - 1].offset + items[index - 1].length, item.offset + item.length]
    : items.length > 1
    ? [item.offset, items[1].offset]
    : [item.offset, item.offset + item.length];
  return text.slice(0, from) + text.slice(to);
}

/** The new text with `key` set to `value` (or removed when `value` is undefined). */
export function setTopLevel(document: SettingsDocument, key: string, value: unknown): string {
  if (document.text === undefined) {
    return value === undefined ? "{}\n" : `${JSON.stringify({ [key]: value }, null, 2)}\n`;
  }
  return edit(document.text, [key], value, false);
}

/**
 * The new text with `value` set at `path` (nested keys, array indexes), or removed when `value` is
 * undefined; `insert` adds an array item at the index instead of replacing it.
 */
export function setAt(
  document: SettingsDocument,
  path: Array<string | number>,
  value: unknown,
  insert = false,
): string {
  return edit(document.text ?? "{\n}\n", path, value, insert);
}

/**
 * Where Claude Code keeps the settings of a scope: `~/.claude/settings.json`
 * for the user, `.claude/settings.json` (shared) or `.claude/settings.local.json`
 * (this machine only) in the project, reached without leaving it.
 */
export async function settingsPath(
  ctx: Ctx,
  scope: "project" | "local" | "user",
): Promise<{ path: string; root: string | null }> {
  if (scope === "user") {
    const home = ctx.env.get("HOME") || ctx.env.get("USERPROFILE");
    if (!home) {
      throw new PeaksError(
        "HOME_NOT_SET",
        "Neither HOME nor USERPROFILE is set; cannot find the user settings.",
      );
    }
    return { path: join(home, ".claude", "settings.json"), root: null };
  }
  const project = await resolveProject(ctx);
  const file = scope === "local" ? "settings.local.json" : "settings.json";
  const path = await guardPath(project.root, project.root, join(".claude", file), {
    flag: "project",
  });
  return { path, root: project.root };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === "object" && !Array.isArray(v);

/** Whether `small` is `big` with some items left out, in order. */
function subsequence(small: unknown[], big: unknown[]): boolean {
  let j = 0;
  for (const item of big) if (j < small.length && same(small[j], item)) j++;
  return j === small.length;
}

/** The array at `path` moved from `a` to `b` by removals, insertions or per-item changes. */
function arrayTo(text: string, path: Array<string | number>, a: unknown[], b: unknown[]): string {
  if (subsequence(b, a)) {
    const keep = new Set<number>();
    let j = 0;
    a.forEach((item, i) => {
      if (j < b.length && same(b[j], item)) {
        keep.add(i);
        j++;
      }
    });
    for (let i = a.length - 1; i >= 0; i--) {
      if (!keep.has(i)) text = edit(text, [...path, i], undefined, false);
    }
    return text;
  }
  if (subsequence(a, b)) {
    let i = 0;
    b.forEach((item, j) => {
      if (i < a.length && same(a[i], item)) i++;
      else text = edit(text, [...path, j], item, true);
    });
    return text;
  }
  if (a.length !== b.length) return edit(text, path, b, false);
  b.forEach((item, i) => text = valueTo(text, [...path, i], a[i], item));
  return text;
}

/** `text` with the value at `path` moved from `a` to `b` by the smallest edits found. */
function valueTo(text: string, path: Array<string | number>, a: unknown, b: unknown): string {
  if (same(a, b)) return text;
  if (Array.isArray(a) && Array.isArray(b)) return arrayTo(text, path, a, b);
  if (!isObject(a) || !isObject(b)) return edit(text, path, b, false);
  for (const key of Object.keys(a)) {
    if (!(key in b)) text = edit(text, [...path, key], undefined, false);
  }
  for (const [key, value] of Object.entries(b)) {
    text = key in a
      ? valueTo(text, [...path, key], a[key], value)
      : edit(text, [...path, key], value, false);
  }
  return text;
}

/**
 * The new text with the top-level `key` changed from its current value to `value` (removed when
 * undefined) by the smallest edits: items and keys added or removed one by one, so whatever the user
 * wrote inside the value (comments, layout) stays.
 */
export function changeTopLevel(document: SettingsDocument, key: string, value: unknown): string {
  const current = document.get(key);
  if (document.text === undefined || current === undefined || value === undefined) {
    return setAt(document, [key], value);
  }
  return valueTo(document.text, [key], current, value);
}

/** Whether a value holds no setting at all: empty objects and arrays, nested or not. */
function hollow(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (value && typeof value === "object") return Object.values(value).every(hollow);
  return false;
}

/**
 * Whether settings text holds nothing a person wrote: no comments and no setting, only empty
 * objects and arrays (`{ "permissions": { "allow": [] } }` once peaks' rule is out), apart from
 * `leftover`, the top-level keys peaks itself writes into a new file.
 */
export function isEmptySettings(text: string, leftover: Record<string, unknown> = {}): boolean {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || !tree || tree.type !== "object") return false;
  if (/\/\/|\/\*/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) return false;
  const value = nodeValue(tree) as Record<string, unknown>;
  const rest = Object.entries(value).filter(([key, v]) =>
    !(Object.hasOwn(leftover, key) && JSON.stringify(leftover[key]) === JSON.stringify(v))
  );
  return rest.every(([, v]) => hollow(v));
}

/** What the human output adds when an uninstall removed the emptied file. */
export const REMOVED_NOTE = " (nothing else was left in the file, so it was removed)";

/**
 * Writes an edited settings file; an uninstall that leaves it empty (see isEmptySettings) removes
 * the file instead, so a file peaks created does not stay behind as `{}`. Says which it did.
 */
export async function saveSettings(
  path: string,
  text: string,
  options: {
    uninstall: boolean;
    mode?: number;
    leftover?: Record<string, unknown>;
    /** The bytes to write for `text` (a document keeps its own encoding and line ends). */
    encode?: (text: string) => Uint8Array;
  },
): Promise<"written" | "removed"> {
  if (options.uninstall && isEmptySettings(text, options.leftover)) {
    await Deno.remove(path).catch((error) => {
      if (!isNotFound(error)) throw error;
    });
    return "removed";
  }
  const bytes = options.encode ? options.encode(text) : text;
  await writeFileAtomic(path, bytes, options.mode === undefined ? {} : { mode: options.mode });
  return "written";
}
