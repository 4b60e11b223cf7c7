/**
 * The finalize audit: every artefact a record knows about still exists and,
 * when it was registered with a hash, still has it; and no commit appeared
 * on the branch since the sub-agent was dispatched (sub-agents must leave
 * their diff uncommitted).
 */
import type { Warning } from "../infra/errors.ts";
import { PeaksError } from "../infra/errors.ts";
import { type Commit, commitsSince } from "../infra/git.ts";
import { guardPath } from "../infra/fs/guard.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import type { DispatchRecord } from "../record/record.ts";
import { hashFile } from "../infra/fs/hash.ts";
import { isAbsolute, join } from "../infra/std.ts";
import { sliceCommits } from "../slice/audit.ts";

export interface ArtifactCheck {
  path: string;
  /** ok: present (and unchanged when a hash was registered). */
  state: "ok" | "missing" | "changed" | "outside-project";
  registered: boolean;
}

export interface RecordAudit {
  recordPath: string;
  artifacts: ArtifactCheck[];
  gitHead: string | null;
  /** Commits since gitHead; null when there is no gitHead or git could not tell. */
  commits: Commit[] | null;
  /** An isolated slice's commits inside its own worktree. */
  worktreeCommits?: Commit[];
}

async function resolveInside(project: Project, raw: string): Promise<string | undefined> {
  try {
    return await guardPath(project.root, project.root, raw, { flag: "artefact" });
  } catch (error) {
    if (error instanceof PeaksError) return undefined;
    throw error;
  }
}

const isFile = (path: string) => Deno.stat(path).then((i) => i.isFile, () => false);

async function checkOne(
  project: Project,
  raw: string,
  sha256: string | null,
  unmerged: string | null,
): Promise<ArtifactCheck> {
  const path = await resolveInside(project, raw);
  if (!path) return { path: raw, state: "outside-project", registered: sha256 !== null };
  const shown = displayPath(project.root, path);
  // Existence needs no read; a registered hash is checked by streaming the file.
  if (sha256 === null) {
    const present = await isFile(path) || await inWorktree(unmerged, shown);
    return { path: shown, state: present ? "ok" : "missing", registered: false };
  }
  const measured = await hashFile(path).catch(() => undefined);
  if (!measured) return { path: shown, state: "missing", registered: true };
  return { path: shown, state: measured.sha256 === sha256 ? "ok" : "changed", registered: true };
}

/**
 * A product file a slice returned that is not merged yet (its slice waits for the ones before it,
 * or is in conflict) is where the slice left it, in its worktree. peaks' own files never are.
 */
async function inWorktree(unmerged: string | null, shown: string): Promise<boolean> {
  if (!unmerged || isAbsolute(shown) || shown.startsWith(".peaks/")) return false;
  // Written by the sub-agent: looked at, never followed through a link.
  return await Deno.lstat(join(unmerged, shown)).then((i) => i.isFile, () => false);
}

/** The project folder of a slice's worktree while its change is not in the main tree. */
function unmergedDir(record: DispatchRecord): string | null {
  const wt = record.worktree;
  return wt && wt.state !== "merged" ? wt.projectDir : null;
}

export async function auditRecord(
  project: Project,
  recordPath: string,
  record: DispatchRecord,
): Promise<{ audit: RecordAudit; warnings: Warning[] }> {
  const wanted = new Map<string, string | null>();
  for (const meta of record.artifactMetas) wanted.set(meta.path, meta.sha256);
  // A sub-agent that skipped with a reason, or did not end done (failed, blocked, cancelled), wrote
  // nothing that is due: the files declared for it are not looked for.
  const skipped = record.result?.status === "skipped" && !!record.result.reason?.trim();
  const declared = skipped || record.status !== "done" ? [] : record.declaredArtifacts;
  for (const path of [...declared, ...(record.result?.artefacts ?? [])]) {
    const key = path.replaceAll("\\", "/").replace(/^\.\//, "");
    if (!wanted.has(key)) wanted.set(key, null);
  }
  const [artifacts, commits, inWorktree] = await Promise.all([
    Promise.all(
      [...wanted].map(([path, sha]) => checkOne(project, path, sha, unmergedDir(record))),
    ),
    record.gitHead ? commitsSince(project.root, record.gitHead) : Promise.resolve(undefined),
    record.worktree ? sliceCommits(project, record) : Promise.resolve(undefined),
  ]);
  const shown = displayPath(project.root, recordPath);
  const warnings: Warning[] = [];
  for (const check of artifacts) {
    if (check.state === "missing") {
      warnings.push({
        code: "ARTIFACT_MISSING",
        message: `${check.path} (artefact of ${record.role}) does not exist.`,
        recordPath: shown,
        path: check.path,
      });
    } else if (check.state === "changed") {
      warnings.push({
        code: "ARTIFACT_CHANGED",
        message: `${check.path} changed after ${record.role} registered it (sha256 differs).`,
        recordPath: shown,
        path: check.path,
      });
    } else if (check.state === "outside-project") {
      warnings.push({
        code: "ARTIFACT_OUTSIDE_PROJECT",
        message: `${record.role} reported an artefact outside the project: ${check.path}.`,
        recordPath: shown,
        path: check.path,
      });
    }
  }
  if (record.gitHead && commits === undefined) {
    warnings.push({
      code: "GIT_AUDIT_UNAVAILABLE",
      message: `Could not list commits since ${
        record.gitHead.slice(0, 12)
      } (history rewritten or not a repository); check git log yourself.`,
      recordPath: shown,
    });
  } else if (commits && commits.length) {
    warnings.push({
      code: "UNAUTHORIZED_COMMIT",
      message:
        `${commits.length} commit(s) appeared on the branch since ${record.role} was dispatched (${
          commits.map((c) => c.sha.slice(0, 12)).join(", ")
        }); sub-agents must not commit. Review them with git show.`,
      recordPath: shown,
      commits,
    });
  }
  if (inWorktree?.length) warnings.push(worktreeCommitWarning(record, shown, inWorktree));
  return {
    audit: {
      recordPath: shown,
      artifacts,
      gitHead: record.gitHead,
      commits: commits ?? null,
      ...(inWorktree ? { worktreeCommits: inWorktree } : {}),
    },
    warnings,
  };
}

function worktreeCommitWarning(record: DispatchRecord, shown: string, commits: Commit[]): Warning {
  return {
    code: "UNAUTHORIZED_COMMIT",
    message: `${commits.length} commit(s) were made in ${record.role}'s worktree (${
      commits.map((c) => c.sha.slice(0, 12)).join(", ")
    }); sub-agents must not commit. Their changes come back with the slice's patch; review them with git show.`,
    recordPath: shown,
    commits,
  };
}
