/**
 * Gate G, as the TXT `finalized` transition checks it: CLAUDE.md's managed
 * block exists and names the stack. `standards` renders the block from the
 * stored scan, so a block that names no stack is fixed by `update` only when
 * that scan names one.
 */
import { checkRequirements } from "../request/requirements.ts";
import { readScanResult } from "../scan/result.ts";
import type { Project } from "../workspace/project.ts";
import type { Check } from "./model.ts";
import { peaksLine } from "../infra/shell.ts";

async function storedScanNamesStack(project: Project): Promise<boolean> {
  const scan = await readScanResult(project).catch(() => undefined);
  return Boolean(scan && Object.values(scan.stack).some((v) => typeof v === "string" && v));
}

export const standardsCheck: Check = {
  name: "standards",
  async run({ project }) {
    const [problem] = await checkRequirements(project.root, [{
      path: project.layout.claudeMd,
      headings: [],
      placeholderFree: false,
      standards: true,
    }]);
    if (!problem) return { summary: "CLAUDE.md's managed block names the stack", findings: [] };
    const standards = (action: "init" | "update") =>
      peaksLine(project.root, ["standards", action, "--apply"]);
    const gate = "The TXT finalized transition refuses until it does.";
    if (problem.kind !== "standards-no-stack") {
      const missing = problem.kind === "missing";
      return {
        summary:
          "the handoff gate (txt finalized needs CLAUDE.md's peaks block to name the stack) would refuse",
        findings: [{
          id: missing ? "standards.missing" : "standards.block-missing",
          severity: "warning",
          title: missing ? "CLAUDE.md is missing" : "CLAUDE.md has no peaks managed block",
          detail: `${problem.message} ${gate} Text outside the block is never touched.`,
          fix: standards("init"),
          paths: [problem.path],
        }],
      };
    }
    const refreshable = await storedScanNamesStack(project);
    const rescan = peaksLine(project.root, ["scan", "archetype"]);
    return {
      summary:
        "the handoff gate (txt finalized needs CLAUDE.md's peaks block to name the stack) would refuse",
      findings: [{
        id: "standards.no-stack",
        severity: "warning",
        title: "CLAUDE.md's managed block names no stack",
        detail: refreshable
          ? `${problem.message} ${gate} The stored scan names a stack; refreshing the block writes it.`
          : `${problem.message} ${gate} The stored scan names no stack either: once the project has code, run ${rescan} and then ${
            standards("update")
          }; when the scan cannot read the stack, name it by hand under ## Stack inside the block.`,
        fix: refreshable ? standards("update") : null,
        paths: [problem.path],
      }],
    };
  },
};
