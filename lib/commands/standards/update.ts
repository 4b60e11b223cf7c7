import { defineCommand } from "../../infra/command/spec.ts";
import { runStandards, standardsFlags } from "../../standards/run.ts";

export default defineCommand({
  name: "standards update",
  description:
    "Refreshes the peaks-managed standards block in CLAUDE.md and AGENTS.md (and .peaks/standards/**) from the " +
    "current scan and conventions; appends it where missing. Text outside the block stays byte-identical; a " +
    "block peaks did not write, or one edited by hand, is review-only (exit 3). Running it twice changes " +
    "nothing the second time. Dry run unless --apply.",
  flags: standardsFlags,
  examples: [
    "peaks standards update --json",
    "peaks standards update --project ./my-app --apply --json",
  ],
  exitNotes: [
    "3  STANDARDS_REVIEW_ONLY: a file holds a foreign or hand-edited block, or is a symlink; nothing written",
    "3  STANDARDS_GENERIC: a legacy project's block would name no stack or no conventions",
  ],
  run: ({ flags }, ctx) => runStandards(ctx, flags, "update"),
});
