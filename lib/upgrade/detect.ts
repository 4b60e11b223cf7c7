/**
 * Is this a peaks 1.x project? Read-only. A workspace (.peaks/) must exist,
 * and one of: the user's ~/.peaks/config.json says version 1.x; the 1.x rule
 * file .claude/rules/common/dev-preference.md mentions `peaks progress`;
 * .peaks/preferences.json exists with a schema_version other than 2.0.0; or
 * preferences are missing while a 1.x layout sign exists (.peaks/<sid>/ at
 * the top of .peaks/, .peaks/.active-skill.json, .peaks/.session.json).
 */
import { sessionArtefactSigns } from "./request_artefacts.ts";
import { join } from "../infra/std.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import type { Project } from "../workspace/project.ts";
import { displayPath } from "../workspace/paths.ts";
import { isNotFound } from "../infra/errors.ts";
import { isValidId } from "../infra/ids.ts";
import { readBinding } from "../session/session.ts";
import { AUTO_UPGRADE_PROMPT, PREFERENCES_SCHEMA_VERSION } from "../preferences/preferences.ts";
import { isDirectory, readIfPresent } from "../infra/fs/files.ts";

/** 1.x kept session folders straight under .peaks/ with this name shape. */
export const LEGACY_SESSION_DIR = /^\d{4}-\d{2}-\d{2}-session-[0-9a-z]+$/i;

export type SignalKind =
  | "global-config"
  | "dev-preference"
  | "preferences-version"
  | "legacy-session-dir"
  | "legacy-active-skill"
  | "legacy-session-file"
  | "session-artefacts";

export interface Signal {
  kind: SignalKind;
  /** Project-relative, or absolute for the user's config. */
  path: string;
  message: string;
}

export type Decision = "ask" | "auto-run" | "skip";

export interface Detection {
  isOneX: boolean;
  workspaceExists: boolean;
  signals: Signal[];
  projectRoot: string;
  configPath: string | null;
  decision: Decision;
  decisionReason: string;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

export function homeDir(ctx: Ctx): string | undefined {
  return ctx.env.get("HOME") || ctx.env.get("USERPROFILE") || undefined;
}

/** The 1.x layout signs at the top of .peaks/. */
export async function legacyLayoutSigns(project: Project): Promise<Signal[]> {
  const signs: Signal[] = [];
  const rel = (path: string) => displayPath(project.root, path);
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(project.layout.peaks)) {
      if (entry.isDirectory && LEGACY_SESSION_DIR.test(entry.name) && isValidId(entry.name)) {
        names.push(entry.name);
      }
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  for (const name of names.sort()) {
    const path = project.layout.legacySessionDir(name);
    signs.push({
      kind: "legacy-session-dir",
      path: `${rel(path)}/`,
      message: `${rel(path)}/ is a 1.x session folder (2.0 keeps sessions under .peaks/_runtime/)`,
    });
  }
  for (
    const [kind, path] of [
      ["legacy-active-skill", project.layout.legacyActiveSkill],
      ["legacy-session-file", project.layout.legacySessionFile],
    ] as const
  ) {
    try {
      await Deno.lstat(path);
      signs.push({ kind, path: rel(path), message: `${rel(path)} is a 1.x state file` });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return signs;
}

/** The current session id without requiring it to exist: flag > env > binding. */
async function currentSession(
  ctx: Ctx,
  project: Project,
  explicit?: string,
): Promise<string | undefined> {
  if (explicit) return explicit;
  const fromEnv = ctx.env.get("PEAKS_SESSION_ID");
  if (fromEnv) return fromEnv;
  return (await readBinding(project).catch(() => undefined))?.sessionId;
}

export async function detect1x(
  ctx: Ctx,
  project: Project,
  sessionFlag?: string,
): Promise<Detection> {
  const rel = (path: string) => displayPath(project.root, path);
  const workspaceExists = await isDirectory(project.layout.peaks, { lstat: true });
  const { signals, configPath } = await globalConfigSigns(ctx);
  const devPreference = join(project.root, ".claude", "rules", "common", "dev-preference.md");
  if (/peaks progress/i.test((await readIfPresent(devPreference)) ?? "")) {
    signals.push({
      kind: "dev-preference",
      path: rel(devPreference),
      message: `${rel(devPreference)} mentions \`peaks progress\` (a 1.x command)`,
    });
  }
  const prefsText = await readIfPresent(project.layout.preferences);
  const prefs = record(parseJson(prefsText ?? ""));
  if (prefsText !== undefined) {
    const sign = preferencesSign(project, prefs);
    if (sign) signals.push(sign);
  } else if (workspaceExists) {
    signals.push(...await legacyLayoutSigns(project));
  }
  // A 2.0 workspace from before per-request artefacts still needs its one move.
  if (workspaceExists) signals.push(...await sessionArtefactSigns(project));
  const isOneX = workspaceExists && signals.length > 0;
  const { decision, decisionReason } = isOneX ? await decide(ctx, project, prefs, sessionFlag) : {
    decision: "skip" as const,
    decisionReason: workspaceExists ? "not a 1.x project" : "no peaks workspace here",
  };
  return {
    isOneX,
    workspaceExists,
    signals,
    projectRoot: project.root,
    configPath,
    decision,
    decisionReason,
  };
}

/** The installation's ~/.peaks/config.json, when it says 1.x. */
async function globalConfigSigns(
  ctx: Ctx,
): Promise<{ signals: Signal[]; configPath: string | null }> {
  const home = homeDir(ctx);
  const configFile = home ? join(home, ".peaks", "config.json") : undefined;
  const configText = configFile ? await readIfPresent(configFile) : undefined;
  const configPath = configText === undefined ? null : configFile!;
  const version = record(parseJson(configText ?? ""))?.version;
  if (!configPath || typeof version !== "string" || !/^1(\.|$)/.test(version)) {
    return { signals: [], configPath };
  }
  return {
    signals: [{
      kind: "global-config",
      path: configPath,
      message: `${configPath} has version ${version}`,
    }],
    configPath,
  };
}

/** Preferences written by 1.x: another schema_version, or none. */
function preferencesSign(
  project: Project,
  prefs: Record<string, unknown> | undefined,
): Signal | undefined {
  const schemaVersion = prefs?.schema_version;
  if (schemaVersion === PREFERENCES_SCHEMA_VERSION) return undefined;
  const shown = displayPath(project.root, project.layout.preferences);
  const what = prefs === undefined
    ? "is not a JSON object"
    : schemaVersion === undefined
    ? "has no schema_version"
    : `has schema_version ${JSON.stringify(schemaVersion)}`;
  return {
    kind: "preferences-version",
    path: shown,
    message: `${shown} ${what}, expected "${PREFERENCES_SCHEMA_VERSION}"`,
  };
}

/** For a 1.x project: ask, run or skip, from the autoUpgradePrompt preference. */
async function decide(
  ctx: Ctx,
  project: Project,
  prefs: Record<string, unknown> | undefined,
  sessionFlag: string | undefined,
): Promise<{ decision: Decision; decisionReason: string }> {
  const choice = prefs?.autoUpgradePrompt;
  const known = typeof choice === "string" &&
    (AUTO_UPGRADE_PROMPT as readonly string[]).includes(choice);
  if (!known) {
    return { decision: "ask", decisionReason: "autoUpgradePrompt is not set: ask the user" };
  }
  if (choice === "opt-in") {
    return { decision: "auto-run", decisionReason: "autoUpgradePrompt is opt-in" };
  }
  if (choice === "skip-forever") {
    return { decision: "skip", decisionReason: "autoUpgradePrompt is skip-forever" };
  }
  const stored = prefs?.autoUpgradePromptSessionId;
  const current = await currentSession(ctx, project, sessionFlag);
  const same = typeof stored === "string" && current !== undefined && stored === current;
  return same
    ? {
      decision: "skip",
      decisionReason: `autoUpgradePrompt is skip-this-session for the current session ${current}`,
    }
    : {
      decision: "ask",
      decisionReason:
        "autoUpgradePrompt is skip-this-session, recorded in another session: ask again",
    };
}
