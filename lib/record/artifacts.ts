/**
 * Where sub-agent artefacts may live and how they are described (G7): under
 * `.peaks/_sub_agents/<sid>/artifacts/` named `<rid>-<role>-NNN.<ext>`, or
 * anywhere under `.peaks/_runtime/<sid>/`; at most 1 MiB; recorded as
 * metadata (size, sha256, summary) so the orchestrator never reads the body.
 */
import { gateError, usageError } from "../infra/errors.ts";
import { climbsOut } from "../infra/fs/guard.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import type { ArtifactMeta } from "./record.ts";
import { roleFileName } from "./names.ts";
import { isAbsolute, relative } from "../infra/std.ts";
import { hashFile } from "../infra/fs/hash.ts";
import { FileRefused } from "../infra/fs/files.ts";

export const ARTIFACT_MAX_BYTES = 1024 * 1024;
export const SUMMARY_MAX = 200;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function within(dir: string, path: string): string | undefined {
  const rel = relative(dir, path);
  if (rel === "" || climbsOut(rel) || isAbsolute(rel)) return undefined;
  return rel;
}

export interface ArtifactPlace {
  /** NNN from the file name for files in the artifacts folder, else null. */
  idx: number | null;
}

/** Checks the path convention; throws ARTIFACT_PATH_INVALID (exit 2) naming both allowed places. */
export function checkArtifactPath(
  project: Project,
  sid: string,
  rid: string,
  role: string,
  path: string,
  flag: string,
): ArtifactPlace {
  const inArtifacts = within(project.layout.artifactsDir(sid), path);
  if (inArtifacts !== undefined) {
    const name = new RegExp(
      `^${escape(rid)}-${escape(roleFileName(role))}-(\\d{3})\\.[A-Za-z0-9]{1,16}$`,
    );
    const match = name.exec(inArtifacts);
    if (match && Number(match[1]) >= 1) return { idx: Number(match[1]) };
  } else if (within(project.layout.sessionDir(sid), path) !== undefined) {
    return { idx: null };
  }
  const artifacts = displayPath(project.root, project.layout.artifactsDir(sid));
  throw usageError(
    "ARTIFACT_PATH_INVALID",
    `--${flag} ${
      displayPath(project.root, path)
    } is not an artefact path: use ${artifacts}/${rid}-${
      roleFileName(role)
    }-NNN.<ext> (NNN = 001, 002, …) or a file under ${
      displayPath(project.root, project.layout.sessionDir(sid))
    }/.`,
    { data: { flag, path: displayPath(project.root, path), artifactsDir: artifacts } },
  );
}

/** Size and sha256 of a file; undefined when it does not exist. ARTIFACT_TOO_LARGE past 1 MiB. */
export async function measureArtifact(
  project: Project,
  path: string,
): Promise<{ size: number; sha256: string } | undefined> {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const shown = displayPath(project.root, path);
  if (!info.isFile) {
    throw usageError("ARTIFACT_PATH_INVALID", `${shown} is not a regular file.`, {
      data: { path: shown },
    });
  }
  if (info.size > ARTIFACT_MAX_BYTES) {
    throw gateError(
      "ARTIFACT_TOO_LARGE",
      `${shown} is ${info.size} bytes; an artefact may be at most ${ARTIFACT_MAX_BYTES} bytes (1 MiB). Split it into numbered parts (…-001, …-002) and register each.`,
      { data: { path: shown, size: info.size, max: ARTIFACT_MAX_BYTES } },
    );
  }
  const measured = await hashFile(path).catch((error) => {
    if (!(error instanceof FileRefused)) throw error;
    throw usageError("ARTIFACT_PATH_INVALID", `${shown} is not a regular file.`, {
      data: { path: shown },
    });
  });
  if (!measured) return undefined;
  return measured;
}

export function buildMeta(
  project: Project,
  path: string,
  measured: { size: number; sha256: string },
  fields: Pick<ArtifactMeta, "status" | "summary" | "writtenAt" | "rid" | "role" | "idx">,
): ArtifactMeta {
  return { path: displayPath(project.root, path), ...measured, ...fields };
}

/** The ~200-character view of an artefact shown to the orchestrator. */
export function compactMeta(meta: ArtifactMeta): Record<string, unknown> {
  return {
    path: meta.path,
    size: meta.size,
    sha256: meta.sha256.slice(0, 12),
    status: meta.status,
    summary: meta.summary && meta.summary.length > 80
      ? `${meta.summary.slice(0, 79)}…`
      : meta.summary,
  };
}

export interface DeclaredArtifacts {
  /** Project-relative paths, in the order given, without repeats. */
  declared: string[];
  /** Metadata of the declared files that already exist. */
  metas: ArtifactMeta[];
}

/**
 * Artefact paths a dispatch declares up front (`--write-artifact`, a DAG
 * node's `artifacts`): each resolved by the caller's guard, checked against
 * the path convention, and measured when it already exists.
 */
export async function declareArtifacts(
  project: Project,
  target: { sessionId: string; requestId: string; role: string; flag: string; at: string },
  raws: string[],
  resolvePath: (raw: string) => Promise<string>,
): Promise<DeclaredArtifacts> {
  const { sessionId, requestId, role, flag } = target;
  const declared: string[] = [];
  const metas: ArtifactMeta[] = [];
  for (const raw of raws) {
    const path = await resolvePath(raw);
    const place = checkArtifactPath(project, sessionId, requestId, role, path, flag);
    const shown = displayPath(project.root, path);
    if (declared.includes(shown)) continue;
    declared.push(shown);
    const measured = await measureArtifact(project, path);
    if (measured) {
      metas.push(buildMeta(project, path, measured, {
        status: "created",
        summary: null,
        writtenAt: target.at,
        rid: requestId,
        role,
        idx: place.idx ?? metas.length + 1,
      }));
    }
  }
  return { declared, metas };
}
