import { defineCommand } from "../../infra/command/spec.ts";
import { editStatusline, statuslineFlags } from "../../settings/statusline_entry.ts";

export default defineCommand({
  name: "statusline uninstall",
  description:
    "Removes peaks' \"statusLine\" from Claude Code's settings.json, keeping every other byte. A status line that " +
    "is not peaks' is left alone (exit 3) unless --force.",
  flags: statuslineFlags,
  examples: ["peaks statusline uninstall --json", "peaks statusline uninstall --scope user --json"],
  exitNotes: ["3  STATUSLINE_CONFLICT: the status line is not peaks' (use --force)"],
  run: ({ flags }, ctx) => editStatusline(ctx, flags, "uninstall"),
});
