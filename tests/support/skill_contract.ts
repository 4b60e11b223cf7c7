/**
 * The skills' contract with the CLI: every `peaks …` command a skill shows
 * must parse against the real command table, and every relative file a skill
 * links must exist in the shipped tree.
 */
import { COMMANDS, findCommand, isGroup } from "../../lib/cli/table.ts";
import { parseCommandArgs } from "../../lib/cli/parse.ts";
import { splitGlobals } from "../../lib/cli/globals.ts";
import type { AnyCommand, FlagDef, FlagDefs } from "../../lib/infra/command/spec.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import { dirname, join, relative } from "../../lib/infra/std.ts";

export interface CommandMention {
  file: string;
  line: number;
  text: string;
}

export interface ContractProblem {
  file: string;
  line: number;
  text: string;
  problem: string;
}

/** Every markdown file below `root`, as paths relative to it. */
export async function markdownFiles(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await markdownFiles(root, path));
    else if (entry.name.endsWith(".md")) out.push(relative(root, path));
  }
  return out.sort();
}

/** `peaks …` lines in fenced blocks and `peaks …` code spans, with their line numbers. */
export function commandMentions(file: string, text: string): CommandMention[] {
  const mentions: CommandMention[] = [];
  let fenced = false;
  text.split("\n").forEach((raw, index) => {
    const line = index + 1;
    if (/^\s*```/.test(raw)) {
      fenced = !fenced;
      return;
    }
    if (fenced) {
      const trimmed = raw.trim();
      if (trimmed.startsWith("peaks ")) mentions.push({ file, line, text: trimmed });
      return;
    }
    for (const span of raw.matchAll(/`(peaks [^`]+)`/g)) {
      mentions.push({ file, line, text: span[1] });
    }
  });
  return mentions;
}

/** Shell words of a command line: quotes removed, stopping at pipes and redirects. */
export function commandWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) {
    const word = match[1] ?? match[2] ?? match[3];
    // Shell syntax ends the peaks words (`\|` is a pipe escaped inside a Markdown table).
    if (match[3] && /^(\\?\||>|>>|2>|&&|;|#)/.test(match[3])) break;
    words.push(word);
  }
  return words;
}

const isPlaceholder = (word: string) => /^<[^<>]+>$/.test(word);

/** A value that satisfies the flag's own check, standing in for a `<placeholder>`. */
function standIn(def: FlagDef): string {
  if (def.values?.length) return def.values[0];
  if (def.placeholder === "<n>") return "30";
  if (def.placeholder === "<duration>") return "10s";
  if (def.placeholder === "<json>") return "{}";
  return "x1";
}

/** Checks one mention; returns the problem or undefined when it parses. */
export async function checkMention(mention: CommandMention): Promise<string | undefined> {
  const words = commandWords(mention.text).slice(1);
  if (words.length === 0 || isPlaceholder(words[0])) return undefined;
  const globals = splitGlobals(words);
  if (globals.rest.length === 0 && (globals.version || globals.help)) return undefined;
  const found = findCommand(globals.rest);
  if (!found && words.length === 1 && isGroup(words[0])) return undefined;
  if (!found) return `no command "${words.slice(0, 2).join(" ")}"`;
  if (globals.help || globals.version) return undefined;
  const tail = globals.rest.slice(found.used);
  // A bare command name in prose names the command; it is not a command line.
  if (tail.length === 0 && words.length === found.used) return undefined;
  const spec: AnyCommand = (await found.entry.load()).default;
  const flags = spec.flags as FlagDefs;
  const argv: string[] = [];
  let positional = 0;
  for (let i = 0; i < tail.length; i++) {
    const word = tail[i];
    const name = word.startsWith("--") ? word.slice(2).split("=")[0] : undefined;
    const def = name !== undefined && Object.hasOwn(flags, name) ? flags[name] : undefined;
    if (def && def.kind !== "boolean" && !word.includes("=") && i + 1 < tail.length) {
      const value = tail[i + 1];
      argv.push(word, isPlaceholder(value) ? standIn(def) : value);
      i++;
      continue;
    }
    if (!word.startsWith("-")) {
      // A placeholder for an argument with a closed set of values stands for one of them.
      const arg = spec.args?.[Math.min(positional++, (spec.args?.length ?? 1) - 1)];
      argv.push(isPlaceholder(word) ? (arg?.values?.[0] ?? "x1") : word);
      continue;
    }
    argv.push(word);
  }
  try {
    parseCommandArgs(spec, argv);
  } catch (error) {
    if (error instanceof PeaksError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return undefined;
}

/** Markdown links and references/… mentions that point at files of the tree. */
export function citedPaths(text: string): string[] {
  const cited = new Set<string>();
  for (const match of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
    if (!/^[a-z]+:/.test(match[1])) cited.add(match[1]);
  }
  for (const match of text.matchAll(/(?<![\w./-])(references\/[A-Za-z0-9._-]+\.md)/g)) {
    cited.add(match[1]);
  }
  return [...cited];
}

/**
 * A usage synopsis rather than a command line: optional parts in brackets,
 * alternatives with `|`, or an ellipsis standing for the rest.
 */
export function isSynopsis(text: string): boolean {
  return /\[[^\]]*\]|\S\|\S|…|\.\.\./.test(text);
}

/**
 * The documentation's contract: every command line in the pages parses;
 * synopses (brackets, alternatives, ellipses) and the listed phrases that
 * merely quote text are skipped.
 */
export async function checkDocs(files: Array<{ file: string; text: string }>, quoted: string[]) {
  const problems: ContractProblem[] = [];
  for (const { file, text } of files) {
    for (const mention of commandMentions(file, text)) {
      if (isSynopsis(mention.text) || quoted.includes(mention.text)) continue;
      const problem = await checkMention(mention);
      if (problem) problems.push({ ...mention, problem });
    }
  }
  return problems;
}

/** Runs the whole contract over a skills tree; an empty list means it holds. */
export async function checkSkillsTree(root: string): Promise<ContractProblem[]> {
  const problems: ContractProblem[] = [];
  for (const file of await markdownFiles(root)) {
    const text = await Deno.readTextFile(join(root, file));
    for (const mention of commandMentions(file, text)) {
      const problem = await checkMention(mention);
      if (problem) problems.push({ ...mention, problem });
    }
    for (const cited of citedPaths(text)) {
      const target = join(root, dirname(file), cited);
      try {
        await Deno.stat(target);
      } catch {
        problems.push({ file, line: 0, text: cited, problem: "cited file does not exist" });
      }
    }
  }
  return problems;
}

/** Every command name, for tests that check a skill mentions what it must. */
export const COMMAND_NAMES = COMMANDS.map((c) => c.name);
