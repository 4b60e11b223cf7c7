/**
 * Edits of Claude Code's settings.json that keep every other byte (comments,
 * order, indentation) as the user wrote it. jsonc-parser is loaded only here.
 */
import {
  applyEdits,
  type FormattingOptions,
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
}

export async function readSettings(path: string): Promise<SettingsDocument> {
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (text !== undefined && text.trim() === "") text = undefined;
  if (text === undefined) return { path, text, get: () => undefined };
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
  return { path, text, get: (key) => values.get(key) };
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

function formatting(text: string): FormattingOptions {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  return indent.startsWith("\t")
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}

/** The new text with `key` set to `value` (or removed when `value` is undefined). */
export function setTopLevel(document: SettingsDocument, key: string, value: unknown): string {
  if (document.text === undefined) {
    return value === undefined ? "{}\n" : `${JSON.stringify({ [key]: value }, null, 2)}\n`;
  }
  const edits = modify(document.text, [key], value, {
    formattingOptions: formatting(document.text),
  });
  return applyEdits(document.text, edits);
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
  const text = document.text ?? "{}\n";
  const edits = modify(text, path, value, {
    formattingOptions: formatting(document.text ?? '{\n  "x": 1\n}\n'),
    isArrayInsertion: insert,
  });
  return applyEdits(text, edits);
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
  options: { uninstall: boolean; mode?: number; leftover?: Record<string, unknown> },
): Promise<"written" | "removed"> {
  if (options.uninstall && isEmptySettings(text, options.leftover)) {
    await Deno.remove(path).catch((error) => {
      if (!isNotFound(error)) throw error;
    });
    return "removed";
  }
  await writeFileAtomic(path, text, options.mode === undefined ? {} : { mode: options.mode });
  return "written";
}
