/** The command reference (docs/commands.md), generated from the command table. */
import { ALIASES, COMMANDS, GROUPS } from "../lib/cli/table.ts";
import { commandHelp } from "../lib/cli/help.ts";

export async function commandReference(): Promise<string> {
  const lines = [
    "# Command reference",
    "",
    "Generated from the command table by `deno task docs`; a test keeps it in sync.",
    "Every command also accepts `--project <path>`, `--json`, `--pretty` and `--help`.",
    "",
    "Aliases, as the first word: " +
    ALIASES.map((a) => `\`peaks ${a.word}\` (${a.flag})`).join(", ") +
    "; `peaks help <command>` is `peaks <command> --help`.",
    "",
  ];
  const groups = new Map<string, typeof COMMANDS>();
  for (const entry of COMMANDS.filter((c) => !c.hidden)) {
    const group = entry.name.includes(" ") ? entry.name.split(" ")[0] : entry.name;
    groups.set(group, [...(groups.get(group) ?? []), entry]);
  }
  for (const [group, entries] of groups) {
    lines.push(`## ${group}`, "");
    if (GROUPS[group]) lines.push(GROUPS[group], "");
    for (const entry of entries) {
      const spec = (await entry.load()).default;
      lines.push(`### peaks ${entry.name}`, "", "```text", commandHelp(entry, spec), "```", "");
    }
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const target = new URL("../docs/commands.md", import.meta.url);
  await Deno.writeTextFile(target, await commandReference());
}
