import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { assertId } from "../../infra/ids.ts";
import { resolveProject } from "../../workspace/project.ts";
import { findKey, getAt, parseValue } from "../../preferences/keys.ts";
import { applyCommand, runChange, shownPath } from "../../preferences/change.ts";

export default defineCommand({
  name: "preferences set",
  description:
    'Sets one preference. --value is JSON (true, "balanced", {"enabled":true}); for string and enum keys a ' +
    "value that is not JSON is taken as a plain string, so --value opt-in works. Without --apply it previews " +
    "the file before and after. Setting autoUpgradePrompt to skip-this-session also records the active " +
    "session as autoUpgradePromptSessionId; any other value clears it.",
  flags: {
    key: flag.string("The key, dotted for nested ones (headroom.enabled).", {
      placeholder: "<key>",
      required: true,
      max: 128,
    }),
    value: flag.string("The value, as JSON or a plain string.", {
      placeholder: "<json>",
      required: true,
      max: 4096,
    }),
    apply: flag.boolean("Write the change (default: preview only)."),
    "session-id": flag.string(
      "Session recorded with skip-this-session (default: the active one).",
      {
        placeholder: "<sid>",
        max: 128,
      },
    ),
  },
  examples: [
    "peaks preferences set --key autoUpgradePrompt --value opt-in --apply --json",
    "peaks preferences set --key headroom.enabled --value true --json",
    "peaks preferences set --key swarmMode --value assisted --apply --json",
  ],
  async run({ flags }, ctx) {
    const entry = findKey(flags.key);
    const value = parseValue(entry, flags.value);
    const session = flags["session-id"] === undefined
      ? undefined
      : assertId(flags["session-id"], "--session-id");
    const project = await resolveProject(ctx);
    const outcome = await runChange(
      ctx,
      project,
      { key: entry.key, value },
      flags.apply,
      session,
    );
    const words = ["set", "--key", entry.key, "--value", flags.value];
    if (session) words.push("--session-id", session);
    return {
      data: {
        projectRoot: project.root,
        path: shownPath(project),
        key: entry.key,
        valueBefore: getAt(outcome.before, entry.key) ?? null,
        valueAfter: getAt(outcome.after, entry.key) ?? null,
        before: outcome.before,
        after: outcome.after,
        changed: outcome.changed,
        applied: flags.apply && outcome.changed,
        preview: !flags.apply,
      },
      warnings: outcome.warnings,
      nextActions: flags.apply || !outcome.changed ? [] : [applyCommand(project, words)],
      human: `${entry.key}: ${JSON.stringify(getAt(outcome.before, entry.key) ?? null)} -> ${
        JSON.stringify(value)
      }${
        flags.apply ? (outcome.changed ? " (written)" : " (unchanged)") : " (preview; add --apply)"
      }`,
    };
  },
});
