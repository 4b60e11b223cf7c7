import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { openSession } from "../../session/session.ts";
import { LEGACY_ARCHETYPES } from "../../scan/result.ts";
import { displayPath } from "../../workspace/paths.ts";
import type { Warning } from "../../infra/errors.ts";
import { withLock } from "../../infra/fs/lock.ts";
import { scanProject } from "../../scan/scan.ts";
import {
  CONVENTION_SECTIONS,
  type Conventions,
  extractConventions,
  TO_COMPLETE,
} from "../../scan/conventions.ts";
import { mergeDocument, TO_COMPLETE_HEADINGS } from "../../scan/existing_system_doc.ts";
import { assertWritable } from "../../workspace/writable.ts";
import { readIfPresent, writeFileAtomic } from "../../infra/fs/files.ts";
import { peaksLine } from "../../infra/shell.ts";

export default defineCommand({
  name: "scan existing-system",
  description:
    "Extracts the conventions an existing codebase follows (naming, directory layout, service layer, hooks, " +
    "state, styling) into .peaks/_runtime/<sid>/system/existing-system.md, between peaks markers, and adds " +
    "headings marked TO COMPLETE for the skill to fill in. Running it again refreshes only the marked part; " +
    "a file without the markers is left alone. `standards` turns these conventions into CLAUDE.md rules.",
  flags: {
    "session-id": flag.string("Session to write into instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
    "dry-run": flag.boolean("Show what would be written; write nothing."),
  },
  examples: [
    "peaks scan existing-system --json",
    "peaks scan existing-system --project ./legacy-app --dry-run --json",
  ],
  exitNotes: ["1  NO_ACTIVE_SESSION: run peaks workspace init first"],
  async run({ flags }, ctx) {
    const { project, sessionId } = await openSession(ctx, flags["session-id"]);
    const { result, facts, problems } = await scanProject(project.root, ctx.now());
    const conventions = await extractConventions(facts);
    const path = project.layout.existingSystem(sessionId);
    const rel = displayPath(project.root, path);
    await assertWritable(project, path, "the existing-system notes");

    const apply = async () => {
      const outcome = mergeDocument(
        await readIfPresent(path),
        conventions,
        result,
        facts.walk.files.length,
      );
      if (!flags["dry-run"] && (outcome.kind === "created" || outcome.kind === "refreshed")) {
        await writeFileAtomic(path, outcome.text);
      }
      return outcome;
    };
    const outcome = flags["dry-run"] ? await apply() : await withLock(path, apply);

    const warnings: Warning[] = problems.map((message) => ({ code: "SCAN_PARTIAL", message }));
    if (outcome.kind === "review-only") {
      warnings.push({
        code: "EXISTING_SYSTEM_HAND_WRITTEN",
        message: `${rel}: ${outcome.reason}.`,
      });
    }
    if (!LEGACY_ARCHETYPES.includes(result.archetype)) {
      warnings.push({
        code: "NOT_LEGACY",
        message:
          `The archetype is ${result.archetype}; standards do not require these conventions for it.`,
      });
    }
    const { extracted, toComplete } = completeness(conventions);
    const status =
      flags["dry-run"] && outcome.kind !== "unchanged" && outcome.kind !== "review-only"
        ? "planned"
        : outcome.kind;
    return {
      data: {
        projectRoot: project.root,
        sessionId,
        archetype: result.archetype,
        path: rel,
        status,
        dryRun: flags["dry-run"],
        extracted,
        toComplete,
        preview: flags["dry-run"] && outcome.kind !== "review-only" ? outcome.text : undefined,
        instructions: [
          `Open ${rel} and replace every "${TO_COMPLETE}" line with what the code shows, citing files.`,
          "Then preview the standards: the conventions become the CLAUDE.md Conventions section.",
        ],
      },
      warnings,
      nextActions: [
        peaksLine(project.root, ["standards", "update"], [
          ...(flags["session-id"] ? ["--session-id", sessionId] : []),
        ]),
      ],
      human: [
        `${rel}: ${status}`,
        `extracted: ${
          CONVENTION_SECTIONS.map(([key, title]) => `${title} ${extracted[key]}`).join(", ")
        }`,
        `to complete: ${toComplete.join(", ")}`,
      ].join("\n"),
    };
  },
});

/** Per section, how many lines were extracted; and the headings still to complete by hand. */
function completeness(conventions: Conventions) {
  const extracted = Object.fromEntries(
    CONVENTION_SECTIONS.map(([key]) => [
      key,
      conventions[key].filter((line) => !line.includes(TO_COMPLETE)).length,
    ]),
  );
  const toComplete = [
    ...CONVENTION_SECTIONS.filter(([key]) => conventions[key].some((l) => l.includes(TO_COMPLETE)))
      .map(([, title]) => title),
    ...TO_COMPLETE_HEADINGS.map(([title]) => title),
  ];
  return { extracted, toComplete };
}
