/**
 * `--record <path>`: a dispatch record inside this project's
 * `.peaks/_sub_agents/<sid>/`. Accepted as a path (relative to the cwd, or to
 * the project root when it starts with `.peaks/`, as envelopes print it) or
 * as the bare record file name, which is looked up in the session folders.
 */
import type { Ctx } from "../core/command/ctx.ts";
import { guardFlagPath, type Project } from "../core/project/project.ts";
import { guardPath } from "../core/project/guard.ts";
import { isNotFound, usageError } from "../core/errors.ts";
import { isValidId, printable } from "../core/ids.ts";
import { recordNotFound } from "../core/record/record.ts";
import { isRecordFileName } from "../core/record/names_light.ts";
import { join, relative } from "../core/std.ts";

export interface RecordTarget {
  /** Absolute path of the record file. */
  path: string;
  sessionId: string;
}

async function findByName(project: Project, name: string): Promise<string> {
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(project.layout.subAgents)) {
      if (!entry.isDirectory || entry.name === "_archive" || !isValidId(entry.name)) continue;
      const path = join(project.layout.subAgents, entry.name, name);
      try {
        if ((await Deno.lstat(path)).isFile) found.push(path);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (found.length !== 1) throw recordNotFound(project, name);
  return found[0];
}

export async function resolveRecordFlag(
  ctx: Ctx,
  project: Project,
  raw: string,
  flagName = "record",
): Promise<RecordTarget> {
  let path: string;
  if (isRecordFileName(raw)) {
    path = await guardPath(project.root, project.root, await findByName(project, raw), {
      flag: flagName,
    });
  } else if (/^\.peaks[\\/]/.test(raw)) {
    path = await guardPath(project.root, project.root, raw, { flag: flagName });
  } else {
    path = await guardFlagPath(ctx, project, raw, { flag: flagName });
  }
  const parts = relative(project.layout.subAgents, path).split(/[\\/]+/);
  const [sessionId, file] = parts;
  if (
    parts.length !== 2 || !isValidId(sessionId) || sessionId === "_archive" ||
    !isRecordFileName(file)
  ) {
    throw usageError(
      "NOT_A_DISPATCH_RECORD",
      `--${flagName} ${
        JSON.stringify(printable(raw))
      } is not a dispatch record: records are .peaks/_sub_agents/<session-id>/dispatch-*.json (use data.dispatchRecordPath from the dispatch envelope).`,
      { data: { flag: flagName } },
    );
  }
  return { path, sessionId };
}
