import { defineCommand } from "../../infra/command/spec.ts";
import { runStandards, standardsFlags } from "../../standards/run.ts";

export default defineCommand({
  name: "standards init",
  description:
    "First-time project standards: a peaks-managed block in CLAUDE.md and AGENTS.md that names the scanned " +
    "stack and turns legacy constraints into rules (plus .peaks/standards/**). Creates missing files, appends " +
    "the block to existing ones, never touches text outside the block, and leaves an existing peaks block " +
    "alone (use `standards update`). Dry run unless --apply. Runs the scan when project-scan is missing.",
  flags: standardsFlags,
  examples: [
    "peaks standards init --json",
    "peaks standards init --project ./my-app --apply --json",
  ],
  exitNotes: [
    "3  STANDARDS_REVIEW_ONLY: a file holds a foreign or hand-edited block, or is a symlink; nothing written",
    "3  STANDARDS_GENERIC: a legacy project's block would name no stack or no conventions",
  ],
  run: ({ flags }, ctx) => runStandards(ctx, flags, "init"),
});
