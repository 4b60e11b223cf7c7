/**
 * Shared by `permissions install` and `permissions uninstall`: the host's
 * allow rule that lets the orchestrating agent run `peaks` without a
 * permission prompt on every call. For Claude Code it is the
 * `permissions.allow` entry `Bash(peaks:*)` in a settings file, edited in
 * place (comments, order and indentation kept), idempotent, and written
 * only when the user asks for it.
 */
import { flag } from "../infra/command/flag.ts";
import type { CommandResult } from "../infra/command/spec.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { isNotFound, PeaksError } from "../infra/errors.ts";
import { assertNotSymlink } from "../infra/fs/guard.ts";
import { dirname } from "../infra/std.ts";
import { readSettings, REMOVED_NOTE, saveSettings, setAt, settingsPath } from "./settings.ts";

/** Claude Code's rule for every command line that starts with `peaks`. */
export const PEAKS_ALLOW_RULE = "Bash(peaks:*)";

export const permissionsFlags = {
  scope: flag.enum(
    ["local", "project", "user"],
    "Which settings file: the project's .claude/settings.local.json (yours only; honoured at once), its " +
      ".claude/settings.json (shared; Claude Code honours its permission rules only once the folder is " +
      "trusted in an interactive session), or the user's ~/.claude/settings.json (every project).",
    { default: "local" },
  ),
  ide: flag.enum(["claude-code"], "The IDE whose settings to edit.", { default: "claude-code" }),
  "dry-run": flag.boolean("Report what would change; write nothing."),
};

type Flags = { scope: "project" | "local" | "user"; ide: "claude-code"; "dry-run": boolean };

async function fileMode(path: string): Promise<number | undefined> {
  try {
    return (await Deno.stat(path)).mode ?? undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function listAt(value: unknown, key: string, path: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new PeaksError(
      "SETTINGS_INVALID",
      `${path}: "permissions" must be an object; peaks will not rewrite it.`,
      { data: { path } },
    );
  }
  const list = (value as Record<string, unknown>)[key];
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) {
    throw new PeaksError(
      "SETTINGS_INVALID",
      `${path}: "permissions.${key}" must be an array; peaks will not rewrite it.`,
      { data: { path } },
    );
  }
  return list.map(String);
}

export async function editPermissions(
  ctx: Ctx,
  flags: Flags,
  action: "install" | "uninstall",
): Promise<CommandResult> {
  const { path, root } = await settingsPath(ctx, flags.scope);
  await assertNotSymlink(path, "the Claude Code settings file");
  const document = await readSettings(path);
  const permissions = document.get("permissions");
  const allow = listAt(permissions, "allow", path);
  const deny = listAt(permissions, "deny", path) ?? [];
  const present = allow?.includes(PEAKS_ALLOW_RULE) ?? false;

  let next: string | undefined;
  let outcome: string;
  if (action === "install") {
    if (present) outcome = "unchanged";
    else {
      next = allow === undefined
        ? setAt(
          document,
          permissions === undefined ? ["permissions"] : ["permissions", "allow"],
          permissions === undefined ? { allow: [PEAKS_ALLOW_RULE] } : [PEAKS_ALLOW_RULE],
        )
        : setAt(document, ["permissions", "allow", allow.length], PEAKS_ALLOW_RULE, true);
      outcome = "installed";
    }
  } else if (!present) outcome = "unchanged";
  else {
    next = setAt(document, ["permissions", "allow", allow!.indexOf(PEAKS_ALLOW_RULE)], undefined);
    outcome = "removed";
  }

  const changed = next !== undefined && next !== document.text;
  let saved = "";
  if (changed && !flags["dry-run"]) {
    await Deno.mkdir(dirname(path), { recursive: true });
    const mode = await fileMode(path);
    saved = await saveSettings(path, next!, {
      uninstall: action === "uninstall",
      mode,
      encode: (text) => document.encode(text),
    });
  }
  const reported = changed && flags["dry-run"]
    ? `would-be-${outcome}`
    : changed
    ? outcome
    : "unchanged";
  const denied = deny.filter((rule) => rule === "Bash" || rule.startsWith("Bash(peaks"));
  return {
    data: {
      ...(root ? { projectRoot: root } : {}),
      scope: flags.scope,
      ide: flags.ide,
      settingsPath: path,
      rule: PEAKS_ALLOW_RULE,
      action: reported,
      changed: changed && !flags["dry-run"],
      dryRun: flags["dry-run"],
      ...(saved === "removed" ? { fileRemoved: true } : {}),
    },
    warnings: denied.length && action === "install"
      ? [{
        code: "PEAKS_DENIED",
        message: `${path} also denies ${
          denied.join(", ")
        }; deny rules win over allow rules in Claude Code.`,
        rules: denied,
      }]
      : [],
    human: `${path}: allow rule ${PEAKS_ALLOW_RULE} ${reported}${
      saved === "removed" ? REMOVED_NOTE : ""
    }`,
  };
}
