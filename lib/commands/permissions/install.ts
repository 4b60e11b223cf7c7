import { defineCommand } from "../../infra/command/spec.ts";
import { editPermissions, permissionsFlags } from "../../settings/allow_rule.ts";

export default defineCommand({
  name: "permissions install",
  description:
    'Adds the allow rule "Bash(peaks:*)" to permissions.allow in Claude Code\'s settings, so the orchestrating ' +
    "agent runs peaks without a permission prompt on every call (in -p mode each call is refused without it). " +
    "Keeps every other byte and comment of the file; idempotent; refuses a settings file that is a symlink. " +
    "Opt-in: peaks never writes it on its own. The default scope, local, is the one Claude Code honours in an " +
    "untrusted folder (verified with 2.1.328).",
  flags: permissionsFlags,
  examples: [
    "peaks permissions install --json",
    "peaks permissions install --scope user --dry-run --json",
  ],
  run: ({ flags }, ctx) => editPermissions(ctx, flags, "install"),
});
