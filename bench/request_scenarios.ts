/**
 * The request and swarm commands of a workflow, on a session whose PRD is
 * confirmed. The transition alternates between blocking the PRD and resuming
 * it, two legal moves that undo each other.
 */
import type { Scenario } from "./scenario.ts";
import { confirmedPrd, RID } from "./setups.ts";

export const REQUEST_SCENARIOS: Scenario[] = [
  {
    name: "request-show",
    command: "request show",
    shown: `request show ${RID} --role prd --json`,
    setup: confirmedPrd,
    args: ["request", "show", RID, "--role", "prd", "--json"],
  },
  {
    name: "request-lint",
    command: "request lint",
    shown: `request lint ${RID} --role prd --json`,
    setup: confirmedPrd,
    args: ["request", "lint", RID, "--role", "prd", "--json"],
  },
  {
    name: "request-list",
    command: "request list",
    shown: "request list --json",
    setup: confirmedPrd,
    args: ["request", "list", "--json"],
  },
  {
    name: "request-transition",
    command: "request transition",
    shown: `request transition ${RID} --role prd --state blocked|confirmed-by-user --json`,
    setup: confirmedPrd,
    args: (_vars, run) => [
      "request",
      "transition",
      RID,
      "--role",
      "prd",
      ...(run % 2 === 0
        ? ["--state", "blocked", "--reason", "waiting for the API schema"]
        : ["--state", "confirmed-by-user"]),
      "--json",
    ],
  },
  {
    // Planning again rewrites the same plan and DAG.
    name: "swarm-plan",
    command: "swarm plan",
    shown: `swarm plan --rid ${RID} --mode full-auto --json`,
    setup: confirmedPrd,
    args: ["swarm", "plan", "--rid", RID, "--mode", "full-auto", "--json"],
  },
];
