/**
 * Section 3: what the orchestrator's context pays per call, in bytes of
 * stdout. Dispatch with a 100 KB and a short prompt, inline and pointer; the
 * batch status, the list of ten records, a three-node DAG dispatch.
 */
import type { SetupTools } from "./scenario.ts";
import { dispatchArgs, promptText, RID, threeNodeDag, workspace } from "./setups.ts";
import {
  failureReason,
  makeProject,
  peaksIn,
  removeProject,
  runCommand,
  SetupError,
  type Target,
} from "./target.ts";

export interface EnvelopeSize {
  name: string;
  shown: string;
  /** One entry per target: stdout bytes, or why the call failed. */
  results: Array<{ target: string; bytes: number | null; failure?: string }>;
}

interface Probe {
  name: string;
  shown: string;
  /** Which prepared project it runs in. */
  project: "dispatch" | "ten";
  args: string[];
}

const PROBES: Probe[] = [
  {
    name: "dispatch-inline-100k",
    shown: "sub-agent dispatch --prompt-file <100 KB> --brief inline --json",
    project: "dispatch",
    args: dispatchArgs("rd-planning").slice(0, 7).concat([
      "--prompt-file",
      "big.md",
      "--brief",
      "inline",
      "--json",
    ]),
  },
  {
    name: "dispatch-pointer-100k",
    shown: "sub-agent dispatch --prompt-file <100 KB> --brief pointer --json",
    project: "dispatch",
    args: dispatchArgs("rd-planning").slice(0, 7).concat([
      "--prompt-file",
      "big.md",
      "--brief",
      "pointer",
      "--json",
    ]),
  },
  {
    name: "dispatch-inline-short",
    shown: "sub-agent dispatch --prompt <80 B> --brief inline --json",
    project: "dispatch",
    args: dispatchArgs("rd-planning", ["--brief", "inline"]),
  },
  {
    name: "dispatch-pointer-short",
    shown: "sub-agent dispatch --prompt <80 B> --brief pointer --json",
    project: "dispatch",
    args: dispatchArgs("rd-planning", ["--brief", "pointer"]),
  },
  {
    name: "dispatch-dag-3",
    shown: "sub-agent dispatch --from-dag <3 nodes> --json",
    project: "dispatch",
    args: ["sub-agent", "dispatch", "--from-dag", "dag.json", "--json"],
  },
  {
    name: "status-json",
    shown: "sub-agent status --json (10 members)",
    project: "ten",
    args: ["sub-agent", "status", "--json"],
  },
  {
    name: "status-line",
    shown: "sub-agent status (10 members, the line itself)",
    project: "ten",
    args: ["sub-agent", "status"],
  },
  {
    name: "list-10",
    shown: "sub-agent list --json (10 records)",
    project: "ten",
    args: ["sub-agent", "list", "--json"],
  },
];

const TEN_ROLES = [
  "ui",
  "rd-planning",
  "qa-test-cases",
  "rd",
  "qa",
  "sc",
  "txt",
  "prd",
  "ops",
  "doc",
];

async function prepareDispatch(tools: SetupTools): Promise<void> {
  await workspace(tools, "swarm-fan-out");
  await Deno.writeTextFile(`${tools.project}/big.md`, promptText(100 * 1024));
  await Deno.writeTextFile(`${tools.project}/dag.json`, threeNodeDag());
}

/** Ten records in one batch, each with a beat and two of them done. */
async function prepareTen(tools: SetupTools): Promise<void> {
  await workspace(tools, "swarm-fan-out");
  for (const [i, role] of TEN_ROLES.entries()) {
    const envelope = await tools.peaks(dispatchArgs(role));
    // `data.record` (a short id every --record takes); older envelopes give the path.
    const record = String(envelope.data?.record ?? envelope.data?.dispatchRecordPath ?? "");
    const done = i < 2;
    await tools.peaks([
      "sub-agent",
      "heartbeat",
      "--record",
      record,
      "--status",
      done ? "done" : "running",
      "--progress",
      done ? "100" : String(10 + i * 7),
      "--note",
      `step ${i + 1} of ${RID}`,
    ]);
  }
}

export async function measureEnvelopes(
  targets: Target[],
  env: Record<string, string>,
): Promise<EnvelopeSize[]> {
  const sizes: EnvelopeSize[] = PROBES.map((p) => ({ name: p.name, shown: p.shown, results: [] }));
  for (const target of targets) {
    const projects: Record<string, string> = {};
    const setupFailure: Record<string, string> = {};
    for (const [kind, prepare] of [["dispatch", prepareDispatch], ["ten", prepareTen]] as const) {
      const project = projects[kind] = await makeProject();
      try {
        await prepare({
          project,
          peaks: (argv, stdin) => peaksIn(target, project, env, argv, stdin),
        });
      } catch (error) {
        setupFailure[kind] = `setup: ${error instanceof SetupError ? error.message : error}`;
      }
    }
    for (const [i, probe] of PROBES.entries()) {
      if (setupFailure[probe.project]) {
        sizes[i].results.push({
          target: target.label,
          bytes: null,
          failure: setupFailure[probe.project],
        });
        continue;
      }
      const out = await runCommand([...target.prefix, ...probe.args], {
        cwd: projects[probe.project],
        env,
      });
      sizes[i].results.push(
        out.code === 0
          ? { target: target.label, bytes: out.stdout.byteLength }
          : { target: target.label, bytes: null, failure: failureReason(out) },
      );
    }
    for (const project of Object.values(projects)) await removeProject(project);
  }
  return sizes;
}
