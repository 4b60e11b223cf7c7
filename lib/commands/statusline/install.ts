import { defineCommand } from "../../infra/command/spec.ts";
import { editStatusline, statuslineFlags } from "../../settings/statusline_entry.ts";

export default defineCommand({
  name: "statusline install",
  description:
    'Sets "statusLine" in Claude Code\'s settings.json to run `peaks statusline render`, keeping every other byte ' +
    "and comment of the file. Idempotent. A status line that is not peaks' is a conflict (exit 3) unless --force. " +
    "Refuses a settings file that is a symlink.",
  flags: statuslineFlags,
  examples: [
    "peaks statusline install --json",
    "peaks statusline install --scope user --dry-run --json",
  ],
  exitNotes: ["3  STATUSLINE_CONFLICT: a foreign status line is configured (use --force)"],
  run: ({ flags }, ctx) => editStatusline(ctx, flags, "install"),
});
