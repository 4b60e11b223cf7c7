/**
 * Where the workflow goes after converge: the workflow's next step (the UI lock when UI
 * delivered, else the RD request), with one line on what the outcome means for the work ahead.
 * An aborted swarm hands the user its options; their commands are the refusal's nextActions.
 */
import type { SessionContext } from "../session/session.ts";
import type { MemberResult, SwarmOutcome, SwarmPlan } from "./plan_file.ts";
import { planCommand } from "./commands.ts";
import { peaksCommand } from "../session/session.ts";
import { nextStep, stepData } from "../workflow/next.ts";

export interface NextSteps {
  nextActions: string[];
  instructions: string[];
  /** The role at work next, for presence. */
  role: string;
  /** The next step's facts (what its gate misses), or the user's options. */
  data: Record<string, unknown>;
}

function note(plan: SwarmPlan, outcome: SwarmOutcome, members: MemberResult[]): string[] {
  const planning = plan.type === "bugfix" ? "the bug analysis" : "the technical design";
  switch (outcome) {
    case "ok":
      return [];
    case "ui-design-missing":
      return ["No UI design: RD works from the PRD's visual descriptions."];
    case "qa-test-cases-missing":
      return ['No QA test cases: write them (line "## Test cases") before QA runs.'];
    case "tech-doc-missing":
      return [`No RD plan: write ${planning} from the PRD before the spec lock.`];
    case "swarm-degraded-to-sequential":
      return [
        `${
          members.filter((m) => m.final === "failed").map((m) => m.role).join(", ")
        } failed: go on in sequence and write what they left out when the gates name it.`,
      ];
    case "swarm-skipped":
      return [`Type ${plan.type} has no swarm: RD works from the PRD.`];
    case "swarm-aborted":
      return ["Every member failed: tell the user what happened and ask how to go on."];
  }
}

export async function nextSteps(
  session: SessionContext,
  plan: SwarmPlan,
  outcome: SwarmOutcome,
  members: MemberResult[],
): Promise<NextSteps> {
  const instructions = note(plan, outcome, members);
  if (outcome === "swarm-aborted") return aborted(session, plan, instructions);
  const next = await nextStep(session, plan.rid);
  return {
    nextActions: next.command ? [next.command] : [],
    instructions,
    role: next.phase.role,
    data: stepData(next),
  };
}

/** Every member failed: the user picks how to go on. */
function aborted(session: SessionContext, plan: SwarmPlan, instructions: string[]): NextSteps {
  // A retry decides the way the first plan did when its mode was given on the command line.
  const mode = plan.modeSource === "flag" ? ["--mode", plan.mode] : [];
  const rdInit = peaksCommand(session, [
    "request",
    "init",
    "--role",
    "rd",
    "--id",
    plan.rid,
    "--apply",
  ]);
  const userOptions = [
    { option: "retry the swarm with a fresh batch", command: planCommand(session, plan.rid, mode) },
    {
      option: "retry as a sequential swarm (RD planning, then QA test cases)",
      command: planCommand(session, plan.rid, [...mode, "--choice", "sequential"]),
    },
    { option: "go on without the swarm: RD plans inline", command: rdInit },
  ];
  return {
    nextActions: userOptions.map((o) => o.command),
    instructions: [...instructions, "data.userOptions[i] is what nextActions[i] does; or stop."],
    role: "sc",
    data: { userOptions: userOptions.map((o) => o.option) },
  };
}
