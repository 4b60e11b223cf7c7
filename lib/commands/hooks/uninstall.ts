import { defineCommand } from "../../infra/command/spec.ts";
import { editHooks, hooksFlags } from "../../hooks/install.ts";

export default defineCommand({
  name: "hooks uninstall",
  description:
    "Removes peaks' lifecycle hooks (the entries running `peaks hooks run`) from a host's hook settings. " +
    "Other hooks and keys stay; an event left with no hook is dropped.",
  flags: hooksFlags,
  examples: [
    "peaks hooks uninstall --json",
    "peaks hooks uninstall --host qwen-code --scope user --json",
  ],
  run: ({ flags }, ctx) => editHooks(ctx, flags, "uninstall"),
});
