/**
 * The project scan's machine-readable result
 * (`.peaks/project-scan/project-scan.json`, next to the markdown report).
 * Dispatch, swarm and standards read it instead of parsing markdown.
 */
import type { Project } from "../workspace/project.ts";
import { readValidated } from "../infra/fs/json.ts";
import { peaksLine } from "../infra/shell.ts";
import { loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { SCAN_RESULT_SHAPE } from "../state/shapes.ts";
import type { ScanResult } from "../state/scan_result.ts";

export { type Archetype, ARCHETYPES, LEGACY_ARCHETYPES } from "../state/scan_result.ts";
export type { LegacyConstraint, ScanResult } from "../state/scan_result.ts";

/** The scan result file, checked by its shape (zod only for what the shape doubts). */
const ScanResultFile = stateSchema<ScanResult>(
  SCAN_RESULT_SHAPE,
  () =>
    import("../state/scan_result.ts").then((m) => loadSchemas(m.scanResultSchemas)).then((s) =>
      s.ScanResultSchema
    ),
);

export function readScanResult(project: Project): Promise<ScanResult | undefined> {
  return readValidated(project.layout.projectScanJson, ScanResultFile, {
    what: "project scan result",
    repair: [peaksLine(project.root, ["scan", "archetype"])],
  });
}
