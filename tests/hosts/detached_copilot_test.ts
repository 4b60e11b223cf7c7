/** Detached sub-agents run by the real Copilot CLI (bring-your-own-key) against a stand-in Anthropic API. */
import { COPILOT } from "./support/hosts.ts";
import { detachedCases } from "./support/detached_cases.ts";

detachedCases(COPILOT, {
  vendor: "copilot",
  withoutCredentials: ({ COPILOT_PROVIDER_BASE_URL: _url, ...rest }) => rest,
  http500: /^copilot /,
  // Each copilot run unpacks itself into the private HOME first (slow): the cases other vendors
  // already prove for the supervisor are not repeated.
  skip: ["http500", "malformed", "hang"],
});
