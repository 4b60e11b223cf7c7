import { defineCommand } from "../../infra/command/spec.ts";
import type { CommandEntry } from "../entry.ts";
import { buildCompletionModel, type CompletionModel } from "./model.ts";
import { bashScript } from "./bash.ts";

export const SHELLS = ["bash", "zsh", "fish", "powershell"] as const;
export type Shell = (typeof SHELLS)[number];

async function script(shell: Shell, model: CompletionModel): Promise<string> {
  switch (shell) {
    case "bash":
      return bashScript(model);
    case "zsh":
      return (await import("./zsh.ts")).zshScript(model);
    case "fish":
      return (await import("./fish.ts")).fishScript(model);
    case "powershell":
      return (await import("./powershell.ts")).powershellScript(model);
  }
}

/** The command for a given table: the table builds it, so nothing here imports the table. */
export function completionsCommand(
  commands: CommandEntry[],
  groups: Record<string, string>,
  aliases: { word: string; summary: string }[] = [],
) {
  return defineCommand({
    name: "completions",
    description:
      "Prints a completion script for the shell, generated from the command table (commands, flags, " +
      "allowed values). bash: `source <(peaks completions bash)`; zsh: `source <(peaks completions zsh)`; " +
      "fish: `peaks completions fish | source`; PowerShell: " +
      "`peaks completions powershell | Out-String | Invoke-Expression`. With --json the script is in " +
      "data.script.",
    args: [{
      name: "shell",
      description: "The shell to complete for.",
      required: true,
      values: SHELLS,
    }],
    flags: {},
    examples: [
      "peaks completions bash > ~/.local/share/bash-completion/completions/peaks",
      "peaks completions fish > ~/.config/fish/completions/peaks.fish",
    ],
    async run({ args }, ctx) {
      const shell = args.shell as Shell;
      const text = await script(shell, await buildCompletionModel(commands, groups, aliases));
      if (ctx.global.json) return { data: { shell, script: text } };
      await ctx.stdout.write(text);
      return { data: { shell }, raw: true };
    },
  });
}
