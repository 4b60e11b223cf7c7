/**
 * Where the workflow goes after converge, per outcome of the degradation
 * table: the exact commands (nextActions) and what the orchestrator does
 * around them (instructions). An aborted swarm hands out no command: the
 * user decides.
 */
import type { SessionContext } from "../core/session/session.ts";
import type { MemberResult, SwarmOutcome, SwarmPlan } from "./_plan_file.ts";
import { planCommand } from "./_commands.ts";
import { peaksCommand } from "../core/session/session.ts";

export interface NextSteps {
  nextActions: string[];
  instructions: string[];
  /** For swarm-aborted: the ways on the user may pick, each with its command. */
  userOptions?: { option: string; command: string | null }[];
}

export function nextSteps(
  session: SessionContext,
  plan: SwarmPlan,
  outcome: SwarmOutcome,
  members: MemberResult[],
): NextSteps {
  const rid = plan.rid;
  const rdInit = peaksCommand(session, ["request", "init", "--role", "rd", "--id", rid, "--apply"]);
  const rdSpec = peaksCommand(session, [
    "request",
    "transition",
    rid,
    "--role",
    "rd",
    "--state",
    "spec-locked",
  ]);
  const planning = plan.type === "bugfix" ? "the bug analysis" : "the technical design";
  switch (outcome) {
    case "ok":
      return {
        nextActions: [rdSpec],
        instructions: [
          "Gate B passed: every member delivered. RD implementation starts: lock the RD spec, then implement.",
        ],
      };
    case "ui-design-missing":
      return {
        nextActions: [rdSpec],
        instructions: [
          "The UI design is missing: RD continues from the PRD's visual descriptions. Record the handoff note ui-design-missing for TXT.",
        ],
      };
    case "qa-test-cases-missing":
      return {
        nextActions: [rdSpec],
        instructions: [
          'The QA test cases are missing: RD continues; QA writes them (with the line "## Test cases") before it runs. Record the handoff note qa-test-cases-missing for TXT.',
        ],
      };
    case "tech-doc-missing":
      return {
        nextActions: [rdInit, rdSpec],
        instructions: [
          `RD planning is missing: write ${planning} from the PRD in this session, fill the RD request, then lock the spec (the transition refuses until the document exists). Record the handoff note tech-doc-missing for TXT.`,
        ],
      };
    case "swarm-degraded-to-sequential":
      return {
        nextActions: [rdInit, rdSpec],
        instructions: [
          `Two or more members failed (${
            members.filter((m) => m.final === "failed").map((m) => m.role).join(", ")
          }): fall back to sequential. Write ${planning} inline, lock the RD spec, implement, then write the QA test cases inline before QA runs. Record the handoff note swarm-degraded-to-sequential for TXT.`,
        ],
      };
    case "swarm-aborted":
      return aborted(session, plan, rdInit);
    case "swarm-skipped":
      return {
        nextActions: [rdInit, rdSpec],
        instructions: [
          `Type ${plan.type} has no swarm (${plan.note}): RD works from the PRD directly. Fill the RD request, then lock the spec.`,
        ],
      };
  }
}

/** Every member failed: no command, the user picks how to go on. */
function aborted(session: SessionContext, plan: SwarmPlan, rdInit: string): NextSteps {
  // A retry decides the way the first plan did when its mode was given on the command line.
  const mode = plan.modeSource === "flag" ? ["--mode", plan.mode] : [];
  return {
    nextActions: [],
    instructions: [
      "Every member of the swarm failed: pause the workflow and tell the user what happened (data.members[].reasons).",
      "Ask the user how to go on; do not continue on your own. The options are in data.userOptions.",
    ],
    userOptions: [
      {
        option: "retry the swarm with a fresh batch",
        command: planCommand(session, plan.rid, mode),
      },
      {
        option: "retry as a sequential swarm (RD planning, then QA test cases)",
        command: planCommand(session, plan.rid, [...mode, "--choice", "sequential"]),
      },
      { option: "continue without the swarm: RD plans inline", command: rdInit },
      { option: "stop here", command: null },
    ],
  };
}
