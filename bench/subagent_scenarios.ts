/**
 * Hot sub-agent commands for the benchmark harness (same shape as its
 * scenarios: a setup that prepares the project, then one timed command line).
 * The record path and batch id are only known after setup, so setup fills
 * them into the argument arrays before the harness reads them.
 */
import type { Scenario } from "./scenario.ts";

type Peaks = (args: string[]) => Promise<unknown>;

const DISPATCH = [
  "sub-agent",
  "dispatch",
  "rd-planning",
  "--ide",
  "claude-code",
  "--request-id",
  "001-bench",
  "--batch-id",
  "bench",
  "--prompt",
  "Plan the login feature: read the PRD, write rd/tech-doc.md.",
  "--json",
];

async function prepared(peaks: Peaks): Promise<{ recordPath: string }> {
  await peaks(["workspace", "init", "--json"]);
  await peaks(["skill", "presence:set", "peaks-code", "--gate", "swarm-fan-out", "--json"]);
  const envelope = await peaks(DISPATCH) as { data: { dispatchRecordPath: string } };
  return { recordPath: envelope.data.dispatchRecordPath };
}

const heartbeatArgs = [
  "sub-agent",
  "heartbeat",
  "--record",
  "(filled by setup)",
  "--status",
  "running",
  "--progress",
  "40",
  "--stage",
  "analyzing",
  "--json",
];

/** Three parallel planning nodes, as `swarm plan` would emit them. */
const THREE_NODES = JSON.stringify({
  nodes: ["ui", "rd-planning", "qa-test-cases"].map((role) => ({
    id: role,
    role,
    prompt: `Run the ${role} step for 001-bench; your runtime arguments are above.`,
    requestId: "001-bench",
  })),
  edges: [],
});

const PRD = [
  "---",
  "rid: 001-bench",
  "role: prd",
  "type: feature",
  "state: confirmed-by-user",
  "createdAt: 2026-11-29T10:00:00.000Z",
  "updatedAt: 2026-11-29T10:00:00.000Z",
  "---",
  "# PRD 001-bench",
  "",
  "## Goals",
  "",
  "- A login page with a form.",
  "",
  "## Acceptance criteria",
  "",
  "- A1: the user signs in.",
  "",
].join("\n");

export const SUBAGENT_SCENARIOS: Scenario[] = [
  {
    name: "sub-agent dispatch --json",
    args: DISPATCH,
    setup: async (peaks) => void await prepared(peaks),
  },
  {
    name: "sub-agent heartbeat --json",
    args: heartbeatArgs,
    setup: async (peaks) => {
      heartbeatArgs[3] = (await prepared(peaks)).recordPath;
    },
  },
  {
    name: "sub-agent share --json",
    args: [
      "sub-agent",
      "share",
      "--batch",
      "bench",
      "--key",
      "rd-planning.completed",
      "--value",
      '{"artefacts":["rd/tech-doc.md"]}',
      "--from",
      "rd-planning",
      "--json",
    ],
    setup: async (peaks) => void await prepared(peaks),
  },
  {
    name: "sub-agent status",
    args: ["sub-agent", "status"],
    setup: async (peaks) => void await prepared(peaks),
  },
  {
    name: "sub-agent list --json",
    args: ["sub-agent", "list", "--json"],
    setup: async (peaks) => void await prepared(peaks),
  },
  {
    // A new batch on every run: the timed call always dispatches the first level.
    name: "sub-agent dispatch --from-dag (3 nodes) --json",
    args: ["sub-agent", "dispatch", "--from-dag", "dag.json", "--ide", "claude-code", "--json"],
    setup: async (peaks, project) => {
      await peaks(["workspace", "init", "--json"]);
      await Deno.writeTextFile(`${project}/dag.json`, THREE_NODES);
    },
  },
  {
    name: "swarm plan --json",
    args: ["swarm", "plan", "--rid", "001-bench", "--mode", "full-auto", "--json"],
    setup: async (peaks, project) => {
      const init = await peaks(["workspace", "init", "--json"]) as {
        data: { sessionId: string };
      };
      const dir = `${project}/.peaks/_runtime/${init.data.sessionId}/prd/requests`;
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(`${dir}/001-bench.md`, PRD);
    },
  },
];
