import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { resolveProject } from "../../workspace/project.ts";
import { findKey, getAt } from "../../preferences/keys.ts";
import { applyCommand, runChange, shownPath } from "../../preferences/change.ts";

export default defineCommand({
  name: "preferences reset",
  description:
    "Removes one preference (--key) or, without --key, resets the whole file to its defaults " +
    "(schema_version 2.0.0; this also replaces a broken or 1.x file). The old file is never erased: it " +
    "is moved to .peaks/preferences.json.<time>.bak and the result names it. Without --apply it previews.",
  flags: {
    key: flag.string("The key to remove (dotted for nested ones).", {
      placeholder: "<key>",
      max: 128,
    }),
    apply: flag.boolean("Write the change (default: preview only)."),
  },
  examples: [
    "peaks preferences reset --key autoUpgradePrompt --apply --json",
    "peaks preferences reset --apply --json",
  ],
  async run({ flags }, ctx) {
    const entry = flags.key === undefined ? undefined : findKey(flags.key);
    const project = await resolveProject(ctx);
    const key = entry?.key ?? null;
    const outcome = await runChange(ctx, project, { key, value: undefined }, flags.apply);
    const words = ["reset", ...(key ? ["--key", key] : [])];
    return {
      data: {
        projectRoot: project.root,
        path: shownPath(project),
        key,
        valueBefore: key ? getAt(outcome.before, key) ?? null : null,
        before: outcome.before,
        after: outcome.after,
        changed: outcome.changed,
        applied: flags.apply && outcome.changed,
        preview: !flags.apply,
        backup: outcome.backup ?? null,
      },
      warnings: outcome.warnings,
      nextActions: flags.apply || !outcome.changed ? [] : [applyCommand(project, words)],
      human: `${key ?? "all preferences"}: ${
        flags.apply ? (outcome.changed ? "reset" : "already at defaults") : "preview; add --apply"
      }${outcome.backup ? ` (old file kept as ${outcome.backup})` : ""}`,
    };
  },
});
