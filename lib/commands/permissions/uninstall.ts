import { defineCommand } from "../../infra/command/spec.ts";
import { editPermissions, permissionsFlags } from "../../settings/allow_rule.ts";

export default defineCommand({
  name: "permissions uninstall",
  description:
    'Removes the allow rule "Bash(peaks:*)" from permissions.allow in Claude Code\'s settings, keeping every other ' +
    "byte and comment of the file. Other rules are left alone.",
  flags: permissionsFlags,
  examples: [
    "peaks permissions uninstall --json",
    "peaks permissions uninstall --scope user --json",
  ],
  run: ({ flags }, ctx) => editPermissions(ctx, flags, "uninstall"),
});
