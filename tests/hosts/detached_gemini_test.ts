/** Detached sub-agents run by the real Gemini CLI against a stand-in Gemini API. */
import { GEMINI } from "./support/hosts.ts";
import { detachedCases } from "./support/detached_cases.ts";

detachedCases(GEMINI, {
  vendor: "gemini",
  withoutCredentials: ({ GEMINI_API_KEY: _key, ...rest }) => rest,
  http500: /^gemini reported an error \(HTTP 500\): /,
});
