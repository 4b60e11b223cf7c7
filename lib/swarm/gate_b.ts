/**
 * Gate B: what each swarm member must leave on disk before RD implementation
 * starts, and the degradation table that decides how the workflow goes on
 * when members fail. The files are checked with the same code as the
 * request prerequisites: they exist, are not empty, keep no template
 * placeholder, and carry the required heading lines.
 */
import type { Requirement } from "../request/requirements.ts";
import type { Layout } from "../workspace/paths.ts";
import type { RequestType } from "../request/file.ts";
import { BUG_ANALYSIS_HEADINGS, TECH_DOC_HEADINGS } from "../request/prerequisites.ts";
import type { SwarmOutcome, SwarmRole } from "./plan_file.ts";

function file(path: string, headings: string[] = []): Requirement {
  return { path, headings, placeholderFree: true, standards: false, nonEmpty: true };
}

/**
 * Each member's files, as its brief lists them: its Gate-B artefact with the sections its skill
 * names, and the role request it creates, every placeholder replaced.
 */
export function gateBRequirements(
  layout: Layout,
  sid: string,
  rid: string,
  role: SwarmRole,
  type: RequestType,
): Requirement[] {
  switch (role) {
    case "ui":
      return [file(layout.uiDesignDraft(sid, rid)), file(layout.request(sid, "ui", rid))];
    case "rd-planning":
      return [
        type === "bugfix"
          ? file(layout.rdBugAnalysis(sid, rid), BUG_ANALYSIS_HEADINGS)
          : file(layout.rdTechDoc(sid, rid), TECH_DOC_HEADINGS),
        file(layout.request(sid, "rd", rid)),
      ];
    case "qa-test-cases":
      return [
        file(layout.qaTestCases(sid, rid), ["## Test cases"]),
        file(layout.request(sid, "qa", rid)),
      ];
  }
}

/** The handoff note of a member that failed on its own. */
export const MISSING_NOTE: Record<SwarmRole, SwarmOutcome> = {
  ui: "ui-design-missing",
  "rd-planning": "tech-doc-missing",
  "qa-test-cases": "qa-test-cases-missing",
};

/**
 * The degradation table: every planned member failed → swarm-aborted (wins
 * over the rest); two or more → swarm-degraded-to-sequential; one → its own
 * note; none → ok. The notes list the outcome and each missing artefact.
 */
export function degradation(
  planned: SwarmRole[],
  failed: SwarmRole[],
): { outcome: SwarmOutcome; handoffNotes: string[] } {
  const notes = failed.map((role) => MISSING_NOTE[role]);
  if (failed.length === 0) return { outcome: "ok", handoffNotes: [] };
  if (failed.length === planned.length) {
    return { outcome: "swarm-aborted", handoffNotes: ["swarm-aborted", ...notes] };
  }
  if (failed.length >= 2) {
    return {
      outcome: "swarm-degraded-to-sequential",
      handoffNotes: ["swarm-degraded-to-sequential", ...notes],
    };
  }
  return { outcome: notes[0] as SwarmOutcome, handoffNotes: notes };
}
