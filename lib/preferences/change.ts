/** Computing and writing a preferences change; `set` and `reset` share it. */
import { compareText } from "../infra/ids.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError, type Warning } from "../infra/errors.ts";
import { displayPath } from "../workspace/paths.ts";
import { DEFAULT_PREFERENCES, type Preferences, readPreferences } from "./preferences.ts";
import { preferencesSchemas } from "../state/preferences.ts";
import { z } from "../infra/zod.ts";
import type { Project } from "../workspace/project.ts";
import { initCommand, resolveSession } from "../session/session.ts";
import { updateJson } from "../infra/fs/json.ts";
import { withValue } from "./keys.ts";
import { withLock } from "../infra/fs/lock.ts";
import { exists, movePath, readIfPresent, writeJsonAtomic } from "../infra/fs/files.ts";
import { fileTimestamp } from "../infra/ids.ts";
import { peaksLine } from "../infra/shell.ts";

const SESSION_KEY = "autoUpgradePromptSessionId";

export interface Change {
  /** The key changed, or null for the whole file. */
  key: string | null;
  /** The new value; undefined removes the key. */
  value: unknown;
}

/**
 * Applies a change to the current preferences. `skip-this-session` only means
 * something with the session that chose it, so setting it also records the
 * active session id, and any other choice drops the stale id.
 */
export async function nextPreferences(
  ctx: Ctx,
  project: Project,
  current: Preferences,
  change: Change,
  explicitSession?: string,
): Promise<{ next: Preferences; warnings: Warning[] }> {
  if (change.key === null) return { next: { ...DEFAULT_PREFERENCES }, warnings: [] };
  let next = withValue(current, change.key, change.value);
  const warnings: Warning[] = [];
  if (change.key === "autoUpgradePrompt") {
    let sid: string | undefined;
    if (change.value === "skip-this-session") {
      try {
        sid = (await resolveSession(ctx, project, explicitSession)).sessionId;
      } catch (error) {
        if (!(error instanceof PeaksError)) throw error;
        warnings.push({
          code: "SESSION_NOT_RECORDED",
          message:
            `skip-this-session was stored without a session (${error.code}), so it applies to no session.`,
        });
      }
    }
    next = withValue(next, SESSION_KEY, sid);
  }
  return { next, warnings };
}

/** Refuses to create `.peaks/` just to hold preferences: the workspace must exist. */
export async function requireWorkspace(project: Project): Promise<void> {
  try {
    if ((await Deno.stat(project.layout.peaks)).isDirectory) return;
  } catch {
    // reported below
  }
  throw new PeaksError(
    "NO_WORKSPACE",
    `${project.root} has no .peaks workspace yet; preferences live in .peaks/preferences.json.`,
    { data: { projectRoot: project.root }, nextActions: [initCommand(project)] },
  );
}

export function applyCommand(project: Project, words: string[]): string {
  return peaksLine(project.root, ["preferences", ...words, "--apply"]);
}

export interface Outcome {
  before: Preferences;
  after: Preferences;
  changed: boolean;
  warnings: Warning[];
  /** Where a whole-file reset moved the old file (project-relative), or null. */
  backup?: string | null;
}

/**
 * Previews or writes a change. The write happens under the file's lock, with
 * the change recomputed against what is on disk at that moment. A reset of
 * the whole file does not need the old file to be readable.
 */
export async function runChange(
  ctx: Ctx,
  project: Project,
  change: Change,
  apply: boolean,
  explicitSession?: string,
): Promise<Outcome> {
  // A whole-file reset reads the old file leniently: replacing a broken one is its purpose.
  let broken = false;
  const readOld = () =>
    change.key === null
      ? readPreferences(project).catch((error) => {
        if (!(error instanceof PeaksError)) throw error;
        broken = true;
        return DEFAULT_PREFERENCES;
      })
      : readPreferences(project);
  if (!apply) {
    const before = await readOld();
    const { next, warnings } = await nextPreferences(ctx, project, before, change, explicitSession);
    return { before, after: next, changed: broken || !same(before, next), warnings };
  }
  await requireWorkspace(project);
  const path = project.layout.preferences;
  const options = {
    what: "preferences file",
    repair: [applyCommand(project, ["reset"])],
  };
  if (change.key === null) {
    const before = await readOld();
    return await resetWhole(ctx, project, before, broken);
  }
  return await updateJson(
    path,
    preferencesSchemas(z).StoredPreferencesSchema as z.ZodType<Preferences>,
    options,
    async (stored) => {
      const before = stored ?? DEFAULT_PREFERENCES;
      const { next, warnings } = await nextPreferences(
        ctx,
        project,
        before,
        change,
        explicitSession,
      );
      const changed = !same(before, next) || stored === undefined;
      return {
        value: changed ? next : undefined,
        result: { before, after: next, changed, warnings },
      };
    },
  );
}

/**
 * A whole-file reset (which also replaces a broken or 1.x file): the old file
 * is never erased but moved aside to `preferences.json.<time>.bak`, and the
 * outcome names it.
 */
async function resetWhole(
  ctx: Ctx,
  project: Project,
  before: Preferences,
  broken: boolean,
): Promise<Outcome> {
  const path = project.layout.preferences;
  const after = { ...DEFAULT_PREFERENCES };
  const backup = await withLock(path, async () => {
    let moved: string | null = null;
    if (await exists(path) && !(await holdsDefaults(path))) {
      moved = `${path}.${fileTimestamp(ctx.now())}.bak`;
      await movePath(path, moved);
    }
    await writeJsonAtomic(path, after);
    return moved;
  });
  return {
    before,
    after,
    changed: broken || backup !== null || !same(before, after),
    warnings: [],
    backup: backup === null ? null : displayPath(project.root, backup),
  };
}

/** Whether the file holds exactly the defaults (a 1.x file never does). */
async function holdsDefaults(path: string): Promise<boolean> {
  try {
    const raw = JSON.parse((await readIfPresent(path)) ?? "");
    return same(raw as Preferences, DEFAULT_PREFERENCES);
  } catch {
    return false;
  }
}

function same(a: Preferences, b: Preferences): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).sort(([a], [b]) => compareText(a, b))
      .map(([k, v]) => [k, sorted(v)]),
  );
}

export function shownPath(project: Project): string {
  return displayPath(project.root, project.layout.preferences);
}
