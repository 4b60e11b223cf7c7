import { defineCommand } from "../../infra/command/spec.ts";
import { editHooks, hooksFlags } from "../../hooks/install.ts";

export default defineCommand({
  name: "hooks status",
  description:
    "Reports which of peaks' lifecycle hooks a host's settings hold as this version writes them: " +
    "installed, partial or absent (read-only).",
  flags: hooksFlags,
  examples: [
    "peaks hooks status --json",
    "peaks hooks status --host qwen-code --scope user --json",
  ],
  run: ({ flags }, ctx) => editHooks(ctx, flags, "status"),
});
