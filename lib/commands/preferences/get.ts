import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { isNotFound } from "../../infra/errors.ts";
import { readPreferences } from "../../preferences/preferences.ts";
import { resolveProject } from "../../workspace/project.ts";
import { findKey, getAt, PREFERENCE_KEYS } from "../../preferences/keys.ts";
import { shownPath } from "../../preferences/change.ts";

export default defineCommand({
  name: "preferences get",
  description:
    "Shows the project's preferences (.peaks/preferences.json; a missing file means the defaults) and the " +
    "settable keys with their allowed values, or one key's value with --key (dotted: headroom.enabled).",
  flags: {
    key: flag.string("One key to read.", { placeholder: "<key>", max: 128 }),
  },
  examples: [
    "peaks preferences get --json",
    "peaks preferences get --key autoUpgradePrompt --json",
  ],
  async run({ flags }, ctx) {
    const entry = flags.key === undefined ? undefined : findKey(flags.key);
    const project = await resolveProject(ctx);
    const preferences = await readPreferences(project);
    let exists = true;
    try {
      Deno.statSync(project.layout.preferences);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      exists = false;
    }
    const base = { projectRoot: project.root, path: shownPath(project), exists };
    if (entry) {
      const value = getAt(preferences, entry.key);
      return {
        data: {
          ...base,
          key: entry.key,
          value: value ?? null,
          isSet: value !== undefined,
          allowed: entry.values,
          expected: entry.expected,
        },
        human: `${entry.key} = ${value === undefined ? "(not set)" : JSON.stringify(value)}`,
      };
    }
    return {
      data: {
        ...base,
        preferences,
        keys: PREFERENCE_KEYS.map((k) => ({ key: k.key, allowed: k.values, expected: k.expected })),
      },
      human: JSON.stringify(preferences, null, 2),
    };
  },
});
