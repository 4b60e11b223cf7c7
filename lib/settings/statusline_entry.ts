/** Shared by `statusline install` and `statusline uninstall`. */
import { flag } from "../infra/command/flag.ts";
import type { CommandResult } from "../infra/command/spec.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { assertNotSymlink } from "../infra/fs/guard.ts";
import { gateError, isNotFound } from "../infra/errors.ts";
import { commandLine, projectArgs } from "../infra/shell.ts";
import { readSettings, REMOVED_NOTE, saveSettings, settingsPath, setTopLevel } from "./settings.ts";

export const STATUSLINE_COMMAND = "peaks statusline render";

export const STATUSLINE_VALUE = { type: "command", command: STATUSLINE_COMMAND, padding: 0 };

/** The peaks program: `peaks`, or a path to it, bare or quoted, with nothing a shell would expand. */
const PROGRAM = String
  .raw`(?:(?:[^\s"'\x60$&|;<>()]*[\\/])?peaks(?:\.exe)?|"(?:[^"\x60$]*[\\/])?peaks(?:\.exe)?"|'(?:[^']*[\\/])?peaks(?:\.exe)?')`;
const OURS = new RegExp(String.raw`^${PROGRAM}\s+statusline\s+render$`);

/**
 * Ours when the whole command is what `statusline install` writes, `peaks statusline render`,
 * whatever path leads to `peaks`; a command that does more (`my-line && peaks statusline render`,
 * a pipe, a wrapper shell) is the user's own, however much of it is peaks.
 */
export function isPeaksStatusline(value: unknown): boolean {
  if (!value || typeof value !== "object") return false;
  const { type, command } = value as Record<string, unknown>;
  return (type === undefined || type === "command") && typeof command === "string" &&
    OURS.test(command.trim());
}

export const statuslineFlags = {
  scope: flag.enum(["project", "user"], "Which settings file: the project's or the user's.", {
    default: "project",
  }),
  ide: flag.enum(["claude-code"], "The IDE whose settings to edit.", { default: "claude-code" }),
  force: flag.boolean("Replace or remove a status line that is not peaks'."),
  "dry-run": flag.boolean("Report what would change; write nothing."),
};

type Flags = { scope: "project" | "user"; ide: "claude-code"; force: boolean; "dry-run": boolean };

async function fileMode(path: string): Promise<number | undefined> {
  try {
    return (await Deno.stat(path)).mode ?? undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export async function editStatusline(
  ctx: Ctx,
  flags: Flags,
  action: "install" | "uninstall",
): Promise<CommandResult> {
  const { path, root } = await settingsPath(ctx, flags.scope);
  await assertNotSymlink(path, "the Claude Code settings file");
  const document = await readSettings(path);
  const current = document.get("statusLine");
  const ours = isPeaksStatusline(current);
  const rerun = commandLine([
    "peaks",
    "statusline",
    action,
    "--scope",
    flags.scope,
    ...(root ? projectArgs(root) : []),
    "--force",
  ]);

  let next: string | undefined;
  let outcome: string;
  if (action === "install") {
    if (ours) outcome = "unchanged";
    else if (current !== undefined && !flags.force) {
      throw gateError(
        "STATUSLINE_CONFLICT",
        `${path} already has a status line that is not peaks' (${
          JSON.stringify(current).slice(0, 120)
        }). ` +
          "Keep it, or replace it with --force.",
        { data: { path, existing: current }, nextActions: [rerun] },
      );
    } else {
      next = setTopLevel(document, "statusLine", STATUSLINE_VALUE);
      outcome = current === undefined ? "installed" : "replaced";
    }
  } else {
    if (current === undefined) outcome = "unchanged";
    else if (!ours && !flags.force) {
      throw gateError(
        "STATUSLINE_CONFLICT",
        `${path} has a status line that is not peaks'; leaving it. Remove it anyway with --force.`,
        { data: { path, existing: current }, nextActions: [rerun] },
      );
    } else {
      next = setTopLevel(document, "statusLine", undefined);
      outcome = "removed";
    }
  }

  const changed = next !== undefined && next !== document.text;
  const saved = changed && !flags["dry-run"]
    ? await saveSettings(path, next!, {
      uninstall: action === "uninstall",
      mode: await fileMode(path),
      encode: (text) => document.encode(text),
    })
    : "";
  const reported = changed && flags["dry-run"]
    ? `would-be-${outcome}`
    : changed
    ? outcome
    : "unchanged";
  return {
    data: {
      ...(root ? { projectRoot: root } : {}),
      scope: flags.scope,
      ide: flags.ide,
      settingsPath: path,
      action: reported,
      changed: changed && !flags["dry-run"],
      dryRun: flags["dry-run"],
      statusLine: action === "install" ? STATUSLINE_VALUE : null,
      ...(saved === "removed" ? { fileRemoved: true } : {}),
    },
    human: `${path}: status line ${reported}${saved === "removed" ? REMOVED_NOTE : ""}`,
  };
}
