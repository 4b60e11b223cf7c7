/** Detached sub-agents run by the real Codex CLI against a stand-in OpenAI Responses API. */
import { CODEX } from "./support/hosts.ts";
import { detachedCases } from "./support/detached_cases.ts";

detachedCases(CODEX, {
  vendor: "codex",
  withoutCredentials: ({ OPENAI_API_KEY: _key, ...rest }) => rest,
  // codex words an HTTP 500 as load, without the status (a 503 or 401 is named by status).
  peaksWritesWhenReadOnly: false,
  http500: /^codex reported an error: We.re currently experiencing high demand/,
});
