/**
 * The commands that decide a slice conflict, as the envelopes, cleanup and doctor name them. They
 * are the orchestrator's to run, and it reads JSON: each asks for the envelope, whose nextAction
 * goes on with the DAG.
 */
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { peaksLine } from "../infra/shell.ts";

export interface ConflictCommands {
  /** Keep the main tree (and the slices merged before); drop this slice's change. */
  keepMain: string;
  /** Take this slice's version of the conflicting files, then the rest of its patch. */
  keepSlice: string;
  /** Send the node out again on top of the main tree as it is now. */
  redo: string;
}

export function conflictCommands(project: Project, recordPath: string): ConflictCommands {
  const record = displayPath(project.root, recordPath);
  const merge = (...extra: string[]) =>
    peaksLine(project.root, ["sub-agent", "merge", "--record", record, ...extra], ["--json"]);
  return {
    keepMain: merge("--keep", "main"),
    keepSlice: merge("--keep", "slice"),
    redo: merge("--redo"),
  };
}
