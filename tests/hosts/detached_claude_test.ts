/** Detached sub-agents run by the real Claude Code CLI against a stand-in Anthropic API. */
import { CLAUDE } from "./support/hosts.ts";
import { detachedCases } from "./support/detached_cases.ts";

detachedCases(CLAUDE, {
  vendor: "claude",
  withoutCredentials: ({ ANTHROPIC_API_KEY: _key, ...rest }) => rest,
  // Claude Code retries a 5xx about ten times over minutes; the outcome is the same with none.
  fewRetries: { CLAUDE_CODE_MAX_RETRIES: "0" },
  http500: /^claude reported an error \(HTTP 500\): API Error: 500/,
});
