/**
 * Orphan detached runs (supervisor gone, or session gone). Doctor only
 * lists them: stopping a vendor is the user's decision.
 */
import { listOrphans, lostVendorInstructions } from "../detached/orphans.ts";
import { type Check, somePaths } from "./model.ts";
import { peaksLine } from "../infra/shell.ts";

export const detachedCheck: Check = {
  name: "detached",
  async run({ project, workspace }) {
    if (!workspace) return { skipped: "no workspace", summary: "", findings: [] };
    const orphans = (await listOrphans(project)).map((o) => o.row);
    if (!orphans.length) return { summary: "no orphan detached runs", findings: [] };
    const gone = orphans.filter((o) => o.reason === "supervisor-gone").length;
    return {
      summary: `${orphans.length} orphan detached run(s)`,
      findings: [{
        id: "detached.orphans",
        severity: "warning",
        title: `${orphans.length} orphan detached run(s): ${gone} supervisor(s) gone, ${
          orphans.length - gone
        } session(s) gone`,
        detail: [
          "The listing shows each run and the command that stops or reconciles them; run that only when the user decides so.",
          ...lostVendorInstructions(orphans),
        ].join(" "),
        fix: peaksLine(project.root, ["sub-agent", "cleanup", "--orphans"]),
        paths: somePaths(orphans.map((o) => o.runDir)),
      }],
    };
  },
};
