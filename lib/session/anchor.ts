/**
 * Anchoring a project: `.peaks/` with its folders and managed `.gitignore`, and the session the
 * workspace binding names (reused, bound, or created). `workspace init` and `session start` both
 * run it; running it again changes nothing but what is missing.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import type { Project } from "../workspace/project.ts";
import { isoTime, newSessionId } from "../infra/ids.ts";
import { displayPath } from "../workspace/paths.ts";
import { readValidated, updateJson } from "../infra/fs/json.ts";
import { movePath, writeJsonAtomic } from "../infra/fs/files.ts";
import { confineState } from "../infra/fs/confine.ts";
import { PeaksError } from "../infra/errors.ts";
import {
  bindingRepair,
  type SessionBinding,
  SessionBindingFile,
  SessionMetaFile,
} from "./session.ts";
import { ensureGitignore, ensureWorkspaceDirs } from "../workspace/skeleton.ts";

export interface Anchored {
  sessionId: string;
  how: "reused" | "bound" | "created";
  previous: string | undefined;
  gitignore: Awaited<ReturnType<typeof ensureGitignore>>;
  /** Paths created now and paths that were already there, relative to the project root. */
  created: string[];
  existing: string[];
}

/** Creates what is missing of the workspace and binds the session (`wanted`, or reuse, or new). */
export async function anchorWorkspace(
  ctx: Ctx,
  project: Project,
  wanted: string | undefined,
): Promise<Anchored> {
  // .peaks must be a real folder (or absent): never a link out of the project, never a file.
  await confineState(project.layout.peaks, { self: true });
  const dirs = await ensureWorkspaceDirs(project);
  const gitignore = await ensureGitignore(project);
  const created = [...dirs.created];
  const existing = [...dirs.existing];
  const decision = await bindSession(ctx, project, wanted, { created, existing });
  const gitignorePath = displayPath(project.root, project.layout.gitignore);
  if (gitignore === "created") created.push(gitignorePath);
  else existing.push(gitignorePath);
  return { ...decision, gitignore, created, existing };
}

interface Decision {
  sessionId: string;
  how: "reused" | "bound" | "created";
  previous: string | undefined;
}

/**
 * The session's metadata; a broken file (the repair of RECORD_UNREADABLE is
 * `workspace init --session-id <sid>`) is moved aside to `.corrupt`, its bytes
 * kept, so a fresh one can be written.
 */
async function readMetaOrAside(metaPath: string) {
  try {
    return await readValidated(metaPath, SessionMetaFile, { what: "session metadata" });
  } catch (error) {
    if (!(error instanceof PeaksError) || error.code !== "RECORD_UNREADABLE") throw error;
    await movePath(metaPath, `${metaPath}.corrupt`);
    return undefined;
  }
}

/**
 * Decides and creates the session under the binding's lock, so concurrent
 * inits agree on one session and never see a binding without its metadata.
 */
function bindSession(
  ctx: Ctx,
  project: Project,
  wanted: string | undefined,
  files: { created: string[]; existing: string[] },
): Promise<Decision> {
  const now = isoTime(ctx.now());
  const ensureMeta = async (sessionId: string) => {
    const metaPath = project.layout.sessionMeta(sessionId);
    const meta = await readMetaOrAside(metaPath);
    if (meta) {
      files.existing.push(displayPath(project.root, metaPath));
      return;
    }
    await writeJsonAtomic(metaPath, { sessionId, createdAt: now, lastActivity: now });
    files.created.push(displayPath(project.root, metaPath));
  };
  return updateJson(
    project.layout.sessionBinding,
    SessionBindingFile,
    { what: "session binding", repair: [bindingRepair(project)] },
    async (binding): Promise<{ value?: SessionBinding; result: Decision }> => {
      if (wanted) {
        const same = binding?.sessionId === wanted;
        await ensureMeta(wanted);
        return {
          value: same
            ? undefined
            : { sessionId: wanted, createdAt: now, projectRoot: project.root },
          result: {
            sessionId: wanted,
            how: same ? "reused" : "bound",
            previous: binding?.sessionId,
          },
        };
      }
      if (binding) {
        const metaPath = project.layout.sessionMeta(binding.sessionId);
        const meta = await readValidated(metaPath, SessionMetaFile, { what: "session metadata" });
        if (meta) {
          files.existing.push(displayPath(project.root, metaPath));
          return { result: { sessionId: binding.sessionId, how: "reused", previous: undefined } };
        }
      }
      const sessionId = newSessionId(ctx.now());
      await ensureMeta(sessionId);
      return {
        value: { sessionId, createdAt: now, projectRoot: project.root },
        result: { sessionId, how: "created", previous: binding?.sessionId },
      };
    },
  );
}
