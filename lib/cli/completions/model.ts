/**
 * What shell completion needs to know, read from the command table and each
 * command's declaration: the same source as the parser and `--help`, so
 * completions never offer a flag or value the CLI would refuse.
 */
import type { CommandEntry } from "../entry.ts";
import { GLOBAL_FLAGS } from "../globals.ts";
import type { AnyCommand, FlagDefs } from "../../infra/command/spec.ts";

export interface CompletionFlag {
  /** With the dashes: `--agent`. */
  name: string;
  description: string;
  /** What follows the flag: nothing (a switch), one of `values`, a path, or free text. */
  value: "none" | "values" | "path" | "text";
  values: string[];
}

export interface CompletionCommand {
  /** Words as typed: `skills install`. */
  name: string;
  summary: string;
  flags: CompletionFlag[];
  /** Allowed values of each positional argument, in order ([] when free). */
  args: string[][];
}

export interface CompletionWord {
  word: string;
  summary: string;
}

export interface CompletionModel {
  program: string;
  /** First words: groups and one-word commands. */
  top: CompletionWord[];
  /** Second words, per group. */
  subcommands: Record<string, CompletionWord[]>;
  commands: CompletionCommand[];
  /** Flags every command accepts (and `--version` at the top). */
  globalFlags: CompletionFlag[];
}

/** Every word a script embeds must be safe unquoted in every shell's syntax. */
const SAFE_WORD = /^[A-Za-z0-9][A-Za-z0-9._:@+\/-]*$/;

function safe(word: string, where: string): string {
  if (!SAFE_WORD.test(word)) {
    throw new Error(`cannot put ${JSON.stringify(word)} (${where}) into a completion script`);
  }
  return word;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function isPathPlaceholder(placeholder: string | undefined): boolean {
  return /path|file|dir/i.test(placeholder ?? "");
}

function commandFlags(spec: AnyCommand): CompletionFlag[] {
  return Object.entries(spec.flags as FlagDefs).filter(([, def]) => !def.hidden).map(
    ([name, def]) => ({
      name: `--${safe(name, "flag")}`,
      description: oneLine(def.description),
      value: def.kind === "boolean"
        ? "none"
        : def.values?.length
        ? "values"
        : isPathPlaceholder(def.placeholder)
        ? "path"
        : "text",
      values: (def.values ?? []).map((v) => safe(v, `--${name} value`)),
    }),
  );
}

export function globalCompletionFlags(): CompletionFlag[] {
  const flags: CompletionFlag[] = Object.entries(GLOBAL_FLAGS).map(([name, def]) => ({
    name: `--${name}`,
    description: def.description,
    value: def.kind === "boolean" ? "none" : "path",
    values: [],
  }));
  return flags;
}

/**
 * `entries`, `groups` and `aliases` are the command table's (passed in: the
 * table loads this module). Alias words (`help`, `version`) join the first words.
 */
export async function buildCompletionModel(
  entries: CommandEntry[],
  groups: Record<string, string>,
  aliases: { word: string; summary: string }[] = [],
): Promise<CompletionModel> {
  const visible = entries.filter((e) => !e.hidden);
  const specs = await Promise.all(visible.map(async (e) => (await e.load()).default));
  const top: CompletionWord[] = [];
  const subcommands: Record<string, CompletionWord[]> = {};
  const commands: CompletionCommand[] = [];
  visible.forEach((entry, i) => {
    const words = entry.name.split(" ").map((w) => safe(w, "command"));
    const [first, second] = words;
    if (second === undefined) top.push({ word: first, summary: oneLine(entry.summary) });
    else {
      if (!subcommands[first]) {
        subcommands[first] = [];
        top.push({ word: first, summary: oneLine(groups[first] ?? "") });
      }
      subcommands[first].push({ word: second, summary: oneLine(entry.summary) });
    }
    commands.push({
      name: words.join(" "),
      summary: oneLine(entry.summary),
      flags: commandFlags(specs[i]),
      args: (specs[i].args ?? []).map((a) => (a.values ?? []).map((v) => safe(v, `<${a.name}>`))),
    });
  });
  for (const alias of aliases.filter((a) => !a.word.startsWith("-"))) {
    top.push({ word: safe(alias.word, "alias"), summary: oneLine(alias.summary) });
  }
  return { program: "peaks", top, subcommands, commands, globalFlags: globalCompletionFlags() };
}

/** A flag that takes a value, as completion sees it. */
export interface ValueSpec {
  /** The command, or "" for the global flags (valid everywhere). */
  command: string;
  flag: string;
  value: "values" | "path" | "text";
  values: string[];
}

/** Every value-taking flag, command flags first, then the global ones. */
export function valueSpecs(model: CompletionModel): ValueSpec[] {
  const specs: ValueSpec[] = [];
  for (const command of model.commands) {
    for (const flag of command.flags) {
      if (flag.value === "none") continue;
      specs.push({
        command: command.name,
        flag: flag.name,
        value: flag.value,
        values: flag.values,
      });
    }
  }
  for (const flag of model.globalFlags) {
    if (flag.value === "none") continue;
    specs.push({ command: "", flag: flag.name, value: flag.value, values: flag.values });
  }
  return specs;
}

/** Positional argument values: command, argument index, values. */
export function argSpecs(
  model: CompletionModel,
): { command: string; index: number; values: string[] }[] {
  return model.commands.flatMap((c) =>
    c.args.map((values, index) => ({ command: c.name, index, values })).filter((a) =>
      a.values.length
    )
  );
}

export const VERSION_FLAG: CompletionFlag = {
  name: "--version",
  description: "Print the version.",
  value: "none",
  values: [],
};

/** POSIX single quoting (bash, zsh): 'it'\''s'. */
export function posixQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
