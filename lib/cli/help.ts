/** Help text, generated from the command table and each command's declaration. */
import { ALIASES, type CommandEntry, COMMANDS, groupCommands, GROUPS } from "./table.ts";
import { GLOBAL_FLAGS } from "./globals.ts";
import type { AnyCommand, FlagDef, FlagDefs } from "../infra/command/spec.ts";
import { formatDuration } from "../infra/command/spec.ts";
import { VERSION } from "../infra/command/build.ts";

export const EXIT_CODE_HELP = [
  "0  ok",
  "1  the operation failed (the envelope's code says why)",
  "2  usage error: unknown command or flag, bad value (the envelope names the flag and allowed values)",
  "3  a gate refused: lint, prerequisites, prompt budget, conflict",
];

function pad(text: string, width: number): string {
  return text.length >= width ? `${text}  ` : text.padEnd(width);
}

function visible(entries: CommandEntry[]): CommandEntry[] {
  return entries.filter((e) => !e.hidden);
}

export function topHelp(): string {
  const lines = [
    `peaks ${VERSION} - workflow primitives for LLM coding agents`,
    "",
    "Usage: peaks <command> [flags]",
    "",
    "Commands:",
  ];
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 4;
  for (const entry of visible(COMMANDS)) lines.push(`  ${pad(entry.name, width)}${entry.summary}`);
  lines.push("", "Global flags:");
  lines.push(...globalFlagLines());
  lines.push("  --version         Print the version.");
  lines.push("", "Aliases:");
  for (const alias of ALIASES) lines.push(`  ${pad(alias.word, 18)}${alias.summary}`);
  lines.push("", "Exit codes:", ...EXIT_CODE_HELP.map((l) => `  ${l}`));
  lines.push(
    "",
    "Examples:",
    "  peaks session start --skill peaks-code --json",
    "  peaks workspace init --json",
    "  peaks sub-agent --help",
    "",
    "Run `peaks <command> --help` for a command's flags; never guess a flag.",
  );
  return lines.join("\n");
}

export function groupHelp(group: string): string {
  const entries = visible(groupCommands(group));
  const width = Math.max(...entries.map((c) => c.name.length)) + 4;
  const lines = [
    `peaks ${group} - ${GROUPS[group] ?? ""}`.trimEnd(),
    "",
    `Usage: peaks ${group} <command> [flags]`,
    "",
    "Commands:",
    ...entries.map((e) => `  ${pad(e.name, width)}${e.summary}`),
    "",
    "Examples:",
    ...entries.slice(0, 3).map((e) => `  peaks ${e.name} --help`),
  ];
  return lines.join("\n");
}

function globalFlagLines(): string[] {
  return Object.entries(GLOBAL_FLAGS).map(([name, def]) => {
    const head = `--${name}${"placeholder" in def ? ` ${def.placeholder}` : ""}`;
    return `  ${pad(head, 18)}${def.description}`;
  });
}

function defaultText(def: FlagDef): string | undefined {
  if (def.default === undefined || def.kind === "boolean") return undefined;
  if (def.placeholder === "<duration>" && typeof def.default === "number") {
    return formatDuration(def.default);
  }
  return String(def.default);
}

export function commandHelp(entry: CommandEntry, spec: AnyCommand): string {
  const args = (spec.args ?? []).map((a) => {
    const word = a.variadic ? `<${a.name}...>` : `<${a.name}>`;
    return a.required ? word : `[${word}]`;
  });
  const lines = [
    `peaks ${spec.name} - ${entry.summary}`,
    "",
    `Usage: peaks ${[spec.name, ...args].join(" ")} [flags]`,
  ];
  if (spec.description) lines.push("", spec.description);
  if (spec.args?.length) {
    lines.push("", "Arguments:");
    for (const arg of spec.args) {
      const allowed = arg.values ? ` (one of: ${arg.values.join(", ")})` : "";
      lines.push(
        `  ${pad(`<${arg.name}>`, 26)}${arg.description}${allowed}${
          arg.required ? " [required]" : ""
        }`,
      );
    }
  }
  const flags = Object.entries(spec.flags as FlagDefs).filter(([, def]) => !def.hidden);
  if (flags.length) {
    lines.push("", "Flags:");
    for (const [name, def] of flags) {
      const head = `--${name}${def.kind === "boolean" ? "" : ` ${def.placeholder ?? "<value>"}`}`;
      const notes: string[] = [];
      const dflt = defaultText(def);
      if (dflt !== undefined) notes.push(`default: ${dflt}`);
      if (def.required) notes.push("required");
      if (def.kind === "list") notes.push("repeatable");
      const suffix = notes.length ? ` (${notes.join("; ")})` : "";
      if (head.length > 26) {
        lines.push(`  ${head}`, `  ${" ".repeat(26)}${def.description}${suffix}`);
      } else lines.push(`  ${pad(head, 26)}${def.description}${suffix}`);
    }
  }
  lines.push("", "Global flags:", ...globalFlagLines());
  lines.push("", "Exit codes:", ...EXIT_CODE_HELP.map((l) => `  ${l}`));
  for (const note of spec.exitNotes ?? []) lines.push(`  ${note}`);
  lines.push("", "Examples:", ...spec.examples.map((e) => `  ${e}`));
  return lines.join("\n");
}

/** The structured form of a command's help, for `--help --json`. */
export function commandHelpData(entry: CommandEntry, spec: AnyCommand) {
  return {
    name: spec.name,
    summary: entry.summary,
    description: spec.description ?? null,
    args: (spec.args ?? []).map((a) => ({
      name: a.name,
      description: a.description,
      required: Boolean(a.required),
      values: a.values ?? null,
    })),
    flags: Object.entries(spec.flags as FlagDefs).filter(([, def]) => !def.hidden).map((
      [name, def],
    ) => ({
      name: `--${name}`,
      kind: def.kind,
      description: def.description,
      default: def.default ?? null,
      values: def.values ?? null,
      required: Boolean(def.required),
    })),
    examples: spec.examples,
    help: commandHelp(entry, spec),
  };
}
