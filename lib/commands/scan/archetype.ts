import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { resolveProject } from "../../workspace/project.ts";
import { LEGACY_ARCHETYPES } from "../../scan/result.ts";
import { displayPath } from "../../workspace/paths.ts";
import { resolveSession } from "../../session/session.ts";
import type { Warning } from "../../infra/errors.ts";
import { scanProject } from "../../scan/scan.ts";
import { knownStack, writeScanFiles } from "../../scan/report.ts";
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_FILES } from "../../scan/walk.ts";
import { peaksLine } from "../../infra/shell.ts";
import type { Project } from "../../workspace/project.ts";

/** Modes in which the orchestrator decides alone: the standards go on without the user's look. */
const APPLY_MODES = ["full-auto", "swarm", "24h"];

async function appliesAtOnce(project: Project): Promise<boolean> {
  const { readPreferences } = await import("../../preferences/preferences.ts");
  const preferences = await readPreferences(project).catch(() => undefined);
  return APPLY_MODES.includes(preferences?.swarmMode ?? "");
}

export default defineCommand({
  name: "scan archetype",
  description:
    "Reads the project's manifests and files (JS/TS first; Python, Go, Rust, Java by language and build tool) " +
    "and reports the archetype, confidence, signals, frontendOnly with its reason, the stack (language, " +
    "component library, CSS, build tool, state management, routing, test runner) and legacy constraints. " +
    "Writes .peaks/project-scan/project-scan.md and project-scan.json. The walk skips dependency and build " +
    "folders, never follows symlinks and stops at --max-files / --max-depth (reported as truncated).",
  flags: {
    "max-files": flag.int("Stop walking after this many files.", {
      min: 10,
      max: 500_000,
      default: DEFAULT_MAX_FILES,
    }),
    "max-depth": flag.int("Do not descend deeper than this many folders.", {
      min: 1,
      max: 64,
      default: DEFAULT_MAX_DEPTH,
    }),
    "dry-run": flag.boolean("Report the result without writing the scan files."),
  },
  examples: [
    "peaks scan archetype --json",
    "peaks scan archetype --project ./my-app --json",
    "peaks scan archetype --max-files 5000 --dry-run --json",
  ],
  async run({ flags }, ctx) {
    const project = await resolveProject(ctx);
    const { result, problems } = await scanProject(project.root, ctx.now(), {
      maxFiles: flags["max-files"],
      maxDepth: flags["max-depth"],
    });
    const written = flags["dry-run"] ? [] : await writeScanFiles(project, result);
    const warnings: Warning[] = problems.map((message) => ({ code: "SCAN_PARTIAL", message }));

    const root = project.root;
    const nextActions: string[] = [];
    const legacy = LEGACY_ARCHETYPES.includes(result.archetype);
    if (legacy) {
      const hasSession = await resolveSession(ctx, project).then(() => true, () => false);
      if (!hasSession) {
        nextActions.push(peaksLine(root, ["workspace", "init"]));
      }
      nextActions.push(peaksLine(root, ["scan", "existing-system"]));
    }
    // The modes that decide alone apply the standards at once; the others preview them first.
    const apply = await appliesAtOnce(project);
    nextActions.push(peaksLine(root, ["standards", "init", ...(apply ? ["--apply"] : [])]));

    const stackLines = knownStack(result).map(([label, value]) => `  ${label}: ${value}`);
    return {
      data: {
        projectRoot: root,
        archetype: result.archetype,
        confidence: result.confidence,
        signals: result.signals,
        frontendOnly: result.frontendOnly,
        frontendOnlyReason: result.frontendOnlyReason,
        stack: result.stack,
        legacyConstraints: result.legacyConstraints,
        languages: result.languages ?? [],
        monorepo: result.monorepo ?? null,
        truncated: result.walk?.truncated ?? false,
        walk: result.walk,
        written,
        reportPath: displayPath(root, project.layout.projectScan),
        resultPath: displayPath(root, project.layout.projectScanJson),
        instructions: legacy
          ? [
            "This is an existing codebase: run the existing-system extraction, complete its TO COMPLETE headings, then preview the standards.",
          ]
          : apply
          ? [
            "Apply the project standards drawn from this scan (the saved mode applies without a preview).",
          ]
          : ["Preview the project standards drawn from this scan (dry-run by default)."],
      },
      warnings,
      nextActions,
      human: [
        `archetype: ${result.archetype} (confidence ${result.confidence})`,
        `frontendOnly: ${result.frontendOnly} - ${result.frontendOnlyReason}`,
        "stack:",
        ...(stackLines.length ? stackLines : ["  nothing detected"]),
        `legacy constraints:${result.legacyConstraints.length ? "" : " none"}`,
        ...result.legacyConstraints.map((c) => `  - ${c}`),
        written.length ? `wrote ${written.join(", ")}` : "dry run: nothing written",
      ].join("\n"),
    };
  },
});
