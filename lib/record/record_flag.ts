/**
 * `--record <path>`: a dispatch record inside this project's
 * `.peaks/_sub_agents/<sid>/`. Accepted as a path (relative to the cwd, or to
 * the project root when it starts with `.peaks/`, as envelopes print it), as
 * the bare record file name, or as the record's short id (`mx5bdd8m-f9f6`, as
 * dispatch envelopes and pointer briefs give it); names and ids are looked up
 * in the session folders.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { guardFlagPath, type Project } from "../workspace/project.ts";
import { guardPath } from "../infra/fs/guard.ts";
import { usageError } from "../infra/errors.ts";
import { isFile, listDir } from "../infra/fs/files.ts";
import { isValidId, printable } from "../infra/ids.ts";
import { recordNotFound } from "./record.ts";
import { isRecordFileName } from "../state/record.ts";
import { isRecordId } from "./names.ts";
import { join, relative } from "../infra/std.ts";

export interface RecordTarget {
  /** Absolute path of the record file. */
  path: string;
  sessionId: string;
}

async function sessionDirs(project: Project): Promise<string[]> {
  return (await listDir(project.layout.subAgents))
    .filter((entry) => entry.isDirectory && entry.name !== "_archive" && isValidId(entry.name))
    .map((entry) => join(project.layout.subAgents, entry.name));
}

async function findByName(project: Project, name: string): Promise<string> {
  const found: string[] = [];
  for (const dir of await sessionDirs(project)) {
    const path = join(dir, name);
    if (await isFile(path, { lstat: true })) found.push(path);
  }
  if (found.length !== 1) throw recordNotFound(project, name);
  return found[0];
}

/** The record whose file name ends in `-<id>.json`, in any session folder. */
async function findById(project: Project, id: string): Promise<string> {
  const found: string[] = [];
  for (const dir of await sessionDirs(project)) {
    for (const entry of await listDir(dir)) {
      if (entry.isFile && isRecordFileName(entry.name) && entry.name.endsWith(`-${id}.json`)) {
        found.push(join(dir, entry.name));
      }
    }
  }
  if (found.length !== 1) throw recordNotFound(project, id);
  return found[0];
}

export async function resolveRecordFlag(
  ctx: Ctx,
  project: Project,
  raw: string,
  flagName = "record",
): Promise<RecordTarget> {
  let path: string;
  if (isRecordFileName(raw) || isRecordId(raw)) {
    const found = isRecordId(raw) ? await findById(project, raw) : await findByName(project, raw);
    path = await guardPath(project.root, project.root, found, { flag: flagName });
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
      } is not a dispatch record: records are .peaks/_sub_agents/<session-id>/dispatch-*.json (use data.record from the dispatch envelope).`,
      { data: { flag: flagName } },
    );
  }
  return { path, sessionId };
}
