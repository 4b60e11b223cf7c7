/**
 * The sub-agent commands an orchestrator and its sub-agents call during a
 * swarm. Most start mid-swarm (three members dispatched into one batch, each
 * with a beat); the record paths come from the target's own envelopes.
 */
import type { Scenario } from "./scenario.ts";
import { BATCH, dispatchArgs, midSwarm, promptText, RID, threeNodeDag } from "./setups.ts";

const TECH_DOC = `# Tech doc ${RID}\n\n## Context\n\n${promptText(3000)}\n`;

/** DAG files the dispatch-dag scenario prepares: more than the runs of any sensible bench. */
const DAG_ROUNDS = 400;

export const SUBAGENT_SCENARIOS: Scenario[] = [
  {
    name: "dispatch-inline",
    command: "sub-agent dispatch",
    shown: "sub-agent dispatch rd-planning --prompt <80 B> --brief inline --json",
    setup: (tools) => midSwarm(tools),
    args: dispatchArgs("rd-planning", ["--brief", "inline"]),
  },
  {
    name: "dispatch-pointer",
    command: "sub-agent dispatch",
    shown: "sub-agent dispatch rd-planning --prompt <80 B> --brief pointer --json",
    setup: (tools) => midSwarm(tools),
    args: dispatchArgs("rd-planning", ["--brief", "pointer"]),
  },
  {
    // No --batch-id: every call starts a new batch, so it always dispatches the first level.
    name: "dispatch-dag",
    command: "sub-agent dispatch",
    shown: "sub-agent dispatch --from-dag dag.json --json (3 nodes)",
    // A DAG goes out once (DAG_ALREADY_DISPATCHED after that): each run fans out a new one.
    setup: async (tools) => {
      const vars = await midSwarm(tools);
      for (let round = 0; round < DAG_ROUNDS; round++) {
        await Deno.writeTextFile(`${tools.project}/dag-${round}.json`, threeNodeDag(round));
      }
      return vars;
    },
    args: (_vars, run) => [
      "sub-agent",
      "dispatch",
      "--from-dag",
      `dag-${run % DAG_ROUNDS}.json`,
      "--json",
    ],
  },
  {
    name: "brief",
    command: "sub-agent brief",
    shown: "sub-agent brief --record <record>",
    setup: (tools) => midSwarm(tools, "pointer"),
    args: (vars) => ["sub-agent", "brief", "--record", vars.record],
  },
  {
    name: "heartbeat",
    command: "sub-agent heartbeat",
    shown: "sub-agent heartbeat --record <record> --status running --progress 40 --json",
    setup: (tools) => midSwarm(tools),
    args: (vars, run) => [
      "sub-agent",
      "heartbeat",
      "--record",
      vars.record,
      "--status",
      "running",
      "--progress",
      String(20 + (run % 70)),
      "--stage",
      "writing",
      "--note",
      "writing the tech doc",
      "--json",
    ],
  },
  {
    name: "share",
    command: "sub-agent share",
    shown: "sub-agent share --batch <id> --key rd-planning.completed --value <json> --json",
    setup: (tools) => midSwarm(tools),
    args: [
      "sub-agent",
      "share",
      "--batch",
      BATCH,
      "--key",
      "rd-planning.completed",
      "--value",
      `{"artefacts":["rd/tech-doc-${RID}.md"]}`,
      "--from",
      "rd-planning",
      "--json",
    ],
  },
  {
    name: "shared-read",
    command: "sub-agent shared-read",
    shown: "sub-agent shared-read --batch <id> --json (3 entries)",
    setup: async (tools) => {
      const vars = await midSwarm(tools);
      for (const role of ["ui", "rd-planning", "qa-test-cases"]) {
        await tools.peaks([
          "sub-agent",
          "share",
          "--batch",
          BATCH,
          "--key",
          `${role}.completed`,
          "--value",
          `{"artefacts":["${role}/out.md"],"notes":"ready for review"}`,
          "--from",
          role,
        ]);
      }
      return vars;
    },
    args: ["sub-agent", "shared-read", "--batch", BATCH, "--json"],
  },
  {
    name: "status",
    command: "sub-agent status",
    shown: "sub-agent status (3 members)",
    setup: (tools) => midSwarm(tools),
    args: ["sub-agent", "status"],
  },
  {
    name: "list",
    command: "sub-agent list",
    shown: "sub-agent list --json (3 records)",
    setup: (tools) => midSwarm(tools),
    args: ["sub-agent", "list", "--json"],
  },
  {
    // Registering the same path again replaces its entry.
    name: "artifact",
    command: "sub-agent artifact",
    shown: "sub-agent artifact --record <record> --path <3 KB doc> --json",
    setup: async (tools) => {
      const vars = await midSwarm(tools);
      const doc = `.peaks/_runtime/${vars.sid}/rd/tech-doc-${RID}.md`;
      await Deno.mkdir(`${tools.project}/.peaks/_runtime/${vars.sid}/rd`, { recursive: true });
      await Deno.writeTextFile(`${tools.project}/${doc}`, TECH_DOC);
      return { ...vars, doc };
    },
    args: (vars) => [
      "sub-agent",
      "artifact",
      "--record",
      vars.record,
      "--path",
      vars.doc,
      "--summary",
      "tech doc: context, approach, risks, test plan",
      "--json",
    ],
  },
  {
    // A record that is already done keeps its status; finalize re-runs the audit.
    name: "finalize-terminal",
    command: "sub-agent finalize",
    shown: "sub-agent finalize --record <done record> --outcome done --result-json <json> --json",
    setup: async (tools) => {
      const vars = await midSwarm(tools);
      await tools.peaks([
        "sub-agent",
        "heartbeat",
        "--record",
        vars.record,
        "--status",
        "done",
        "--progress",
        "100",
      ]);
      return vars;
    },
    args: (vars) => [
      "sub-agent",
      "finalize",
      "--record",
      vars.record,
      "--outcome",
      "done",
      "--result-json",
      JSON.stringify({
        role: "rd-planning",
        rid: RID,
        status: "ok",
        artefacts: [],
        warnings: [],
      }),
      "--json",
    ],
  },
];
