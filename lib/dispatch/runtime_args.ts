/**
 * What a dispatched sub-agent is told about its surroundings: ids, paths,
 * the workflow mode, the request type, the scan and swarm-plan signals.
 * Each source is optional; a missing one is reported as unknown, and a
 * broken one becomes a warning rather than a failed dispatch.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError, type Warning } from "../infra/errors.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { readPresence } from "../presence/presence.ts";
import { callerIdFromEnv } from "../presence/caller.ts";
import { readJsonFile } from "../infra/fs/json.ts";
import { roleFileName } from "../record/names.ts";
import { exists, whenPresent } from "../infra/fs/files.ts";
import type { RoleSection } from "./role_section.ts";

/** A dispatch without a request id still needs one for file names: one per batch. */
export function generatedRequestId(batchId: string): string {
  return `adhoc-${batchId.slice(0, 12).replace(/[._-]+$/, "")}`;
}

export interface RuntimeArgs {
  projectRoot: string;
  sessionId: string;
  requestId: string;
  requestIdGenerated: boolean;
  batchId: string;
  role: string;
  ide: string;
  mode: string | null;
  requestType: string | null;
  projectScan: { path: string; exists: boolean };
  existingSystem: string | null;
  frontendOnly: boolean | null;
  frontendKeywordHit: boolean | null;
  markerPath: string;
  heartbeatIntervalSec: number;
  declaredArtifacts: string[];
  /** The role's section of its skill, carried in the brief; null when the role has none. */
  roleSection?: RoleSection | null;
  /**
   * Set for an isolated slice of a `--from-dag` wave: the sub-agent starts in its own worktree, so
   * its brief names peaks' files by absolute path, and its marker and channel keys carry the node.
   */
  slice?: SliceArgs;
}

export interface SliceArgs {
  /** The node id of the slice DAG. */
  node: string;
  /** The files of the request to read first, absolute (empty: none exists yet). */
  read: string[];
}

export interface Surroundings {
  mode: string | null;
  requestType: string | null;
  projectScanExists: boolean;
  /** The project scan found a legacy archetype (its existing-system notes apply). */
  legacy: boolean;
  frontendOnly: boolean | null;
  frontendKeywordHit: boolean | null;
  warnings: Warning[];
}

async function soft<T>(warnings: Warning[], read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof PeaksError)) throw error;
    warnings.push({ code: error.code, message: error.message, path: error.data.path });
    return undefined;
  }
}

/** Reads presence, the PRD request, the scan and the swarm plan in parallel. */
async function readPrdRequest(project: Project, sid: string, rid: string) {
  const { readRequest } = await import("../request/file.ts");
  return await readRequest(project, sid, "prd", rid);
}

async function readScan(project: Project) {
  const { LEGACY_ARCHETYPES, readScanResult } = await import("../scan/result.ts");
  const scan = await readScanResult(project);
  return scan && {
    frontendOnly: scan.frontendOnly,
    legacy: (LEGACY_ARCHETYPES as readonly string[]).includes(scan.archetype),
  };
}

export async function readSurroundings(
  ctx: Ctx,
  project: Project,
  sid: string,
  rid: string | null,
): Promise<Surroundings> {
  const warnings: Warning[] = [];
  const callerId = await callerIdFromEnv(ctx.env);
  const [presence, request, scan, scanExists, plan] = await Promise.all([
    soft(warnings, () => readPresence(project, sid, callerId)),
    rid
      ? soft(
        warnings,
        () =>
          whenPresent(project.layout.request(sid, "prd", rid), () =>
            readPrdRequest(project, sid, rid)),
      )
      : undefined,
    soft(warnings, () => whenPresent(project.layout.projectScanJson, () => readScan(project))),
    exists(project.layout.projectScan),
    rid
      ? soft(
        warnings,
        () => readJsonFile(project.layout.swarmPlan(sid, rid), { what: "swarm plan" }),
      )
      : undefined,
  ]);
  // The swarm plan belongs to the swarm commands; only the mode and two booleans are taken from it, defensively.
  const planObject = plan && typeof plan === "object" ? plan as Record<string, unknown> : {};
  const planMatches = rid !== null && planObject.rid === rid;
  const bool = (value: unknown) => planMatches && typeof value === "boolean" ? value : null;
  return {
    // Presence first; a swarm plan for this request knows the mode it was decided in.
    mode: presence?.presence?.mode ??
      (planMatches && typeof planObject.mode === "string" ? planObject.mode : null),
    requestType: request?.meta.type ?? null,
    projectScanExists: scanExists,
    legacy: scan?.legacy ?? false,
    frontendOnly: bool(planObject.frontendOnly) ?? scan?.frontendOnly ?? null,
    frontendKeywordHit: bool(planObject.frontendKeywordHit),
    warnings,
  };
}

export function runtimeArgs(
  project: Project,
  base: Omit<
    RuntimeArgs,
    | "projectRoot"
    | "mode"
    | "requestType"
    | "projectScan"
    | "existingSystem"
    | "frontendOnly"
    | "frontendKeywordHit"
    | "markerPath"
  >,
  around: Surroundings,
): RuntimeArgs {
  const legacy = around.legacy;
  // A slice starts in its worktree, where a project-relative path names nothing of peaks'.
  const shown = (path: string) => base.slice ? path : displayPath(project.root, path);
  const marker = base.slice
    ? `${roleFileName(base.role)}.${base.slice.node}`
    : roleFileName(base.role);
  return {
    ...base,
    projectRoot: project.root,
    mode: around.mode,
    requestType: around.requestType,
    projectScan: {
      path: shown(project.layout.projectScan),
      exists: around.projectScanExists,
    },
    existingSystem: legacy ? shown(project.layout.existingSystem(base.sessionId)) : null,
    frontendOnly: around.frontendOnly,
    frontendKeywordHit: around.frontendKeywordHit,
    markerPath: shown(project.layout.subAgentMarker(base.sessionId, marker)),
  };
}

/**
 * `declareArtifacts` (artifacts.ts), its checks loaded only when `raws` names
 * files: most dispatches declare none.
 */
export async function declareArtifactsLazily(
  ...args: Parameters<typeof import("../record/artifacts.ts").declareArtifacts>
): Promise<import("../record/artifacts.ts").DeclaredArtifacts> {
  if (args[2].length === 0) return { declared: [], metas: [] };
  const { declareArtifacts } = await import("../record/artifacts.ts");
  return await declareArtifacts(...args);
}
