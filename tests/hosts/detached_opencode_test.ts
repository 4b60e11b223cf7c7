/** Detached sub-agents run by the real OpenCode CLI against a stand-in Anthropic API. */
import { OPENCODE } from "./support/hosts.ts";
import { detachedCases } from "./support/detached_cases.ts";

detachedCases(OPENCODE, {
  vendor: "opencode",
  withoutCredentials: (env) => env,
  http500: /^opencode reported an error \(HTTP 500\): /,
  // OpenCode retries a 5xx and a broken stream for about a minute and a half (no knob shortens it),
  // and the supervisor's timeout is the same for every vendor.
  skip: ["http500", "malformed", "auth", "hang"],
});
