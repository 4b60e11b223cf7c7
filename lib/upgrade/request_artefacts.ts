/**
 * Per-request artefacts: earlier versions kept the tech doc, design draft,
 * code review, swarm plan and member DAG once per session, so a second
 * request in the same session read (and overwrote) the first one's. They now
 * carry the request id (`rd/tech-doc-<rid>.md`, `sc/swarm-plan-<rid>.json`…).
 * The upgrade moves each session-wide file to the request its session's swarm
 * plan names, content unchanged; without such a plan the request is unknown,
 * so the file moves to the upgrade backup folder, and the report says where.
 */
import { isValidId } from "../infra/ids.ts";
import { isNotFound } from "../infra/errors.ts";
import { exists, listDir, movePath, readBoundedText } from "../infra/fs/files.ts";
import type { Project } from "../workspace/project.ts";
import { displayPath, type Layout } from "../workspace/paths.ts";
import { assertWritable } from "../workspace/writable.ts";
import { type Migration, moveToBackup, rel, step, type StepReport } from "./steps.ts";

type Kind = keyof ReturnType<Layout["legacySessionArtefacts"]>;
const KINDS: Kind[] = ["swarmPlan", "sliceDag", "uiDesignDraft", "rdTechDoc", "rdCodeReview"];

async function sessionIds(project: Project): Promise<string[]> {
  try {
    const entries = await listDir(project.layout.runtime);
    return entries.filter((e) => e.isDirectory && isValidId(e.name)).map((e) => e.name).sort();
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

async function presentLegacy(layout: Layout, sid: string): Promise<[Kind, string][]> {
  const legacy = layout.legacySessionArtefacts(sid);
  const found: [Kind, string][] = [];
  for (const kind of KINDS) if (await exists(legacy[kind])) found.push([kind, legacy[kind]]);
  return found;
}

/** The request the session-wide swarm plan was written for, when it names a valid one. */
async function planRid(layout: Layout, sid: string): Promise<string | undefined> {
  const text = await readBoundedText(layout.legacySessionArtefacts(sid).swarmPlan).catch(() =>
    undefined
  );
  try {
    const rid = text === undefined ? undefined : JSON.parse(text)?.rid;
    return typeof rid === "string" && isValidId(rid) ? rid : undefined;
  } catch {
    return undefined;
  }
}

/** A session that still keeps session-wide artefacts (one of detect's signals). */
export interface SessionArtefactSign {
  kind: "session-artefacts";
  path: string;
  message: string;
}

/** One sign per session that still keeps session-wide artefacts. */
export async function sessionArtefactSigns(project: Project): Promise<SessionArtefactSign[]> {
  const signs: SessionArtefactSign[] = [];
  for (const sid of await sessionIds(project)) {
    const found = await presentLegacy(project.layout, sid);
    if (!found.length) continue;
    const dir = displayPath(project.root, project.layout.sessionDir(sid));
    signs.push({
      kind: "session-artefacts",
      path: `${dir}/`,
      message: `${dir}/ keeps ${
        found.map(([, p]) => displayPath(project.root, p)).join(", ")
      } once per session (each request now has its own)`,
    });
  }
  return signs;
}

function target(layout: Layout, kind: Kind, sid: string, rid: string): string {
  return layout[kind](sid, rid);
}

export async function requestArtefactsStep(m: Migration): Promise<StepReport> {
  const { layout } = m.project;
  const details: string[] = [];
  for (const sid of await sessionIds(m.project)) {
    const found = await presentLegacy(layout, sid);
    if (!found.length) continue;
    const rid = await planRid(layout, sid);
    for (const [kind, from] of found) {
      const to = rid ? target(layout, kind, sid, rid) : undefined;
      if (to && !(await exists(to))) {
        details.push(`moved ${rel(m, from)} to ${rel(m, to)} (request ${rid})`);
        if (m.dryRun) continue;
        await assertWritable(m.project, to, "a request artefact");
        await movePath(from, to);
        continue;
      }
      const why = to ? `${rel(m, to)} already exists` : "no swarm plan names its request";
      details.push(`moved ${rel(m, from)} to ${await moveToBackup(m, from)} (${why})`);
    }
  }
  return step("request-artefacts", m, details);
}
