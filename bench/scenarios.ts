/**
 * What `deno task bench` times. Each scenario prepares a project once and
 * then runs one peaks command line in it, as an agent would.
 */

import type { Scenario } from "./scenario.ts";
import { SUBAGENT_SCENARIOS } from "./subagent_scenarios.ts";

const withWorkspace = async (peaks: (args: string[]) => Promise<unknown>) => {
  await peaks(["workspace", "init", "--json"]);
  await peaks(["skill", "presence:set", "peaks-code", "--gate", "startup", "--json"]);
};

export const SCENARIOS: Scenario[] = [
  { name: "--version", args: ["--version"] },
  {
    name: "session info --active --json",
    args: ["session", "info", "--active", "--json"],
    setup: withWorkspace,
  },
  { name: "skill presence --json", args: ["skill", "presence", "--json"], setup: withWorkspace },
  {
    name: "statusline render",
    args: ["statusline", "render"],
    stdin: JSON.stringify({ context_window: { used_percentage: 41 } }),
    setup: withWorkspace,
  },
  ...SUBAGENT_SCENARIOS,
];
