import { defineCommand } from "../../infra/command/spec.ts";
import { editHooks, hooksFlags } from "../../hooks/install.ts";

export default defineCommand({
  name: "hooks install",
  description:
    "Adds peaks' lifecycle hooks (`peaks hooks run`) to a host's hook settings: Claude Code, Qwen Code and " +
    "Gemini CLI settings.json, Codex hooks.json, Copilot CLI hooks/peaks.json. The host then marks a sub-agent's " +
    "record started and closes it when the sub-agent ends, adds the resume line at session start, and refuses " +
    "a sub-agent's git commit/push. Idempotent; other hooks and keys are kept; refuses a symlinked file. " +
    "data.note names a trust step the host still needs (Codex, Gemini project hooks).",
  flags: hooksFlags,
  examples: [
    "peaks hooks install --json",
    "peaks hooks install --host qwen-code --scope user --json",
  ],
  run: ({ flags }, ctx) => editHooks(ctx, flags, "install"),
});
