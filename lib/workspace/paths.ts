/**
 * The only place that knows where peaks keeps things in a project. Every
 * identifier that becomes a path segment is validated here.
 */
import { isAbsolute, join, relative, SEPARATOR } from "../infra/std.ts";
import { assertId, printable } from "../infra/ids.ts";
import { usageError } from "../infra/errors.ts";
import { climbsOut } from "../infra/fs/guard.ts";
import { isRecordFileName } from "../state/record.ts";

export const PEAKS_DIR = ".peaks";

export type Layout = ReturnType<typeof projectLayout>;

export function projectLayout(root: string) {
  const peaks = join(root, PEAKS_DIR);
  const runtime = join(peaks, "_runtime");
  const subAgents = join(peaks, "_sub_agents");
  return {
    ...workspaceLayout(root, peaks, runtime, subAgents),
    ...sessionLayout(runtime),
    ...agentsLayout(subAgents),
  };
}

/** The workspace's own files, outside any session. */
function workspaceLayout(root: string, peaks: string, runtime: string, subAgents: string) {
  return {
    root,
    peaks,
    runtime,
    subAgents,
    gitignore: join(peaks, ".gitignore"),
    preferences: join(peaks, "preferences.json"),
    preferencesLocal: join(peaks, "preferences.local.json"),
    projectScanDir: join(peaks, "project-scan"),
    projectScan: join(peaks, "project-scan", "project-scan.md"),
    projectScanJson: join(peaks, "project-scan", "project-scan.json"),
    standardsDir: join(peaks, "standards"),
    upgradeDir: join(peaks, "upgrade"),
    upgradeRecord: (stamp: string) =>
      join(peaks, "upgrade", `upgrade-${assertId(stamp, "upgrade stamp")}.json`),
    upgradeBackupDir: (stamp: string) =>
      join(peaks, "upgrade", "backups", assertId(stamp, "upgrade stamp")),
    /** peaks 1.x kept these at the top of .peaks/; `upgrade` moves them away. */
    legacySessionDir: (sid: string) => join(peaks, assertId(sid, "session id")),
    legacyActiveSkill: join(peaks, ".active-skill.json"),
    legacySessionFile: join(peaks, ".session.json"),
    archive: join(subAgents, "_archive"),
    sessionBinding: join(runtime, "session.json"),
    /** Lock target that serialises counting and starting detached sub-agents in a project. */
    detachedBudget: join(runtime, "detached-budget"),
    /** Lock target that serialises creating, merging and removing slice worktrees in a project. */
    sliceLock: join(runtime, "slices"),
    /** Where the change of a worktree no record knows is saved before `cleanup --orphans --kill` removes it. */
    orphanWorktreePatch: (name: string) =>
      join(subAgents, "_archive", "worktrees", `${assertId(name, "worktree name")}.patch`),
    claudeMd: join(root, "CLAUDE.md"),
  };
}

/** What one session keeps under `_runtime/<sid>/`: presence, requests, role artefacts, runs. */
function sessionLayout(runtime: string) {
  const sessionDir = (sid: string) => join(runtime, assertId(sid, "session id"));
  return {
    sessionDir,
    sessionMeta: (sid: string) => join(sessionDir(sid), "session.json"),
    presence: (sid: string, callerId?: string) =>
      callerId
        ? join(sessionDir(sid), "presence", `${assertId(callerId, "caller id")}.json`)
        : join(sessionDir(sid), "presence.json"),
    presenceDir: (sid: string) => join(sessionDir(sid), "presence"),
    context: (sid: string) => join(sessionDir(sid), "context.json"),
    roleDir: (sid: string, role: string) => join(sessionDir(sid), assertId(role, "role")),
    requestsDir: (sid: string, role: string) =>
      join(sessionDir(sid), assertId(role, "role"), "requests"),
    request: (sid: string, role: string, rid: string) =>
      join(
        sessionDir(sid),
        assertId(role, "role"),
        "requests",
        `${assertId(rid, "request id")}.md`,
      ),
    systemDir: (sid: string) => join(sessionDir(sid), "system"),
    subAgentMarker: (sid: string, role: string) =>
      join(sessionDir(sid), "system", `sub-agent-${assertId(role, "role")}.json`),
    existingSystem: (sid: string) => join(sessionDir(sid), "system", "existing-system.md"),
    /** Each request's own swarm plan and member DAG: planning one request leaves another's alone. */
    swarmPlan: (sid: string, rid: string) =>
      join(sessionDir(sid), "sc", `swarm-plan-${assertId(rid, "request id")}.json`),
    sliceDag: (sid: string, rid: string) =>
      join(sessionDir(sid), "sc", `slice-dag-${assertId(rid, "request id")}.json`),
    detachedDir: (sid: string, rid: string) =>
      join(sessionDir(sid), "detached", assertId(rid, "request id")),
    /** One detached run (one record): swarm siblings share a rid, so each gets its own folder. */
    detachedRunDir: (sid: string, rid: string, run: string) =>
      join(sessionDir(sid), "detached", assertId(rid, "request id"), assertId(run, "detached run")),
    requestOverrides: (sid: string) => join(sessionDir(sid), "request-overrides.json"),

    // Role artefacts that the request gates check, one per request (`<role>/<name>-<rid>.<ext>`).
    uiDesignDraft: (sid: string, rid: string) =>
      join(sessionDir(sid), "ui", `design-draft-${assertId(rid, "request id")}.md`),
    rdTechDoc: (sid: string, rid: string) =>
      join(sessionDir(sid), "rd", `tech-doc-${assertId(rid, "request id")}.md`),
    rdBugAnalysis: (sid: string, rid: string) =>
      join(sessionDir(sid), "rd", `bug-analysis-${assertId(rid, "request id")}.md`),
    rdCodeReview: (sid: string, rid: string) =>
      join(sessionDir(sid), "rd", `code-review-${assertId(rid, "request id")}.md`),
    /**
     * Where versions before per-request artefacts kept them, once per session; `peaks upgrade`
     * moves each to the request it belongs to (the one its session's swarm plan names).
     */
    legacySessionArtefacts: (sid: string) => ({
      swarmPlan: join(sessionDir(sid), "sc", "swarm-plan.json"),
      sliceDag: join(sessionDir(sid), "sc", "slice-dag.json"),
      uiDesignDraft: join(sessionDir(sid), "ui", "design-draft.md"),
      rdTechDoc: join(sessionDir(sid), "rd", "tech-doc.md"),
      rdCodeReview: join(sessionDir(sid), "rd", "code-review.md"),
    }),
    /** The implementation slice DAG RD planning writes for a request. */
    rdSlices: (sid: string, rid: string) =>
      join(sessionDir(sid), "rd", `slices-${assertId(rid, "request id")}.json`),
    qaTestCases: (sid: string, rid: string) =>
      join(sessionDir(sid), "qa", "test-cases", `${assertId(rid, "request id")}.md`),
    qaTestReport: (sid: string, rid: string) =>
      join(sessionDir(sid), "qa", "test-reports", `${assertId(rid, "request id")}.md`),
    scImpact: (sid: string, rid: string) =>
      join(sessionDir(sid), "sc", `${assertId(rid, "request id")}-impact.md`),
    txtHandoff: (sid: string, rid: string) =>
      join(sessionDir(sid), "txt", `handoff-${assertId(rid, "request id")}.md`),
  };
}

/** What one session keeps under `_sub_agents/<sid>/`: records, batches, channels, artefacts. */
function agentsLayout(subAgents: string) {
  const agentsDir = (sid: string) => join(subAgents, assertId(sid, "session id"));
  return {
    agentsDir,
    dispatchRecord: (sid: string, fileName: string) =>
      join(agentsDir(sid), assertRecordFile(fileName)),
    batch: (sid: string, batchId: string) =>
      join(agentsDir(sid), `batch-${assertId(batchId, "batch id")}.json`),
    /** Locked while a `--from-dag` call opens a new batch: one DAG fans out once per session. */
    fanOutLock: (sid: string) => join(agentsDir(sid), "fan-out"),
    sharedDir: (sid: string) => join(agentsDir(sid), "shared"),
    /** Saved prompts that a follow-up command replays with --prompt-file. */
    promptsDir: (sid: string) => join(agentsDir(sid), "prompts"),
    sharedChannel: (sid: string, batchId: string) =>
      join(agentsDir(sid), "shared", `${assertId(batchId, "batch id")}.json`),
    artifactsDir: (sid: string) => join(agentsDir(sid), "artifacts"),
    /** A slice's saved patch, named like its record's detached run (`<rid>/<run>.patch`). */
    slicePatch: (sid: string, rid: string, run: string) =>
      join(
        agentsDir(sid),
        "slices",
        assertId(rid, "request id"),
        `${assertId(run, "slice name")}.patch`,
      ),
    archiveDir: (sid: string) => join(subAgents, "_archive", assertId(sid, "session id")),
  };
}

/** A record's file name (a batch member names one): never a path, never anything else. */
function assertRecordFile(fileName: string): string {
  if (isRecordFileName(fileName)) return fileName;
  throw usageError(
    "INVALID_IDENTIFIER",
    `${
      JSON.stringify(printable(fileName))
    } is not a dispatch record file name (dispatch-<…>.json).`,
    { data: { value: printable(fileName) } },
  );
}

/** A project-relative path with forward slashes, as shown in envelopes. */
export function displayPath(root: string, absolute: string): string {
  const rel = relative(root, absolute);
  if (rel === "" || climbsOut(rel) || isAbsolute(rel)) return absolute;
  return SEPARATOR === "/" ? rel : rel.split(SEPARATOR).join("/");
}
