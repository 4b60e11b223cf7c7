/**
 * Project states the scenarios start from, built with the target's own
 * commands (so a compared CLI prepares its project its own way), plus the
 * files no command writes: a confirmed PRD, a DAG, a prompt, a tech doc.
 */
import type { SetupTools, Vars } from "./scenario.ts";

export const RID = "001-bench";
export const BATCH = "bench";
export const ROLES = ["ui", "rd-planning", "qa-test-cases"] as const;

/** A workspace with presence set, as an orchestrator has after its first steps. */
export async function workspace(tools: SetupTools, gate = "startup"): Promise<Vars> {
  const init = await tools.peaks(["workspace", "init", "--json"]);
  await tools.peaks(["skill", "presence:set", "peaks-code", "--mode", "full-auto", "--gate", gate]);
  const sid = String(init.data?.sessionId ?? "");
  if (!sid) throw new Error("workspace init returned no data.sessionId");
  return { sid };
}

export function dispatchArgs(role: string, extra: string[] = []): string[] {
  return [
    "sub-agent",
    "dispatch",
    role,
    "--request-id",
    RID,
    "--batch-id",
    BATCH,
    "--prompt",
    `Run the ${role} step for ${RID}: read the PRD, write your artefact, report back.`,
    ...extra,
    "--json",
  ];
}

/**
 * Mid-swarm: three members dispatched into one batch, each with a beat. Vars:
 * sid, record (rd-planning's record, as its envelope gives it), records (all three).
 */
export async function midSwarm(tools: SetupTools, brief = "inline"): Promise<Vars> {
  const vars = await workspace(tools, "swarm-fan-out");
  const records: string[] = [];
  for (const role of ROLES) {
    const envelope = await tools.peaks(dispatchArgs(role, ["--brief", brief]));
    // `data.record` (a short id every --record takes); older envelopes give the path.
    const record = String(envelope.data?.record ?? envelope.data?.dispatchRecordPath ?? "");
    if (!record) throw new Error("dispatch returned no data.record");
    records.push(record);
    await tools.peaks([
      "sub-agent",
      "heartbeat",
      "--record",
      record,
      "--status",
      "running",
      "--progress",
      "20",
      "--stage",
      "analyzing",
    ]);
  }
  return { ...vars, record: records[1], records: records.join("\n") };
}

export const PRD = [
  "---",
  `rid: ${RID}`,
  "role: prd",
  "type: feature",
  "state: confirmed-by-user",
  "createdAt: 2026-11-29T10:00:00.000Z",
  "updatedAt: 2026-11-29T10:00:00.000Z",
  "---",
  `# PRD ${RID}: member profile page`,
  "",
  "## Goals",
  "",
  "- A profile page that shows a member's name, role and avatar.",
  "- Members upload a new avatar (PNG or JPEG, at most 2 MB).",
  "",
  "## Acceptance criteria",
  "",
  "- A1: the page shows the member's name, role and avatar.",
  "- A2: an upload over 2 MB is refused with a message.",
  "- A3: a new avatar shows without a page reload.",
  "",
  "<!-- peaks:history:begin -->",
  "## State history",
  "",
  "- 2026-11-29T10:00:00.000Z draft → confirmed-by-user (confirmed)",
  "<!-- peaks:history:end -->",
  "",
].join("\n");

/** A workspace whose PRD is confirmed, as `swarm plan` expects it. */
export async function confirmedPrd(tools: SetupTools): Promise<Vars> {
  const vars = await workspace(tools);
  const dir = `${tools.project}/.peaks/_runtime/${vars.sid}/prd/requests`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/${RID}.md`, PRD);
  return vars;
}

/** Three parallel planning nodes, as `swarm plan` emits them. */
/** A DAG of three parallel nodes; `round` makes it a different graph (one fan-out per DAG). */
export function threeNodeDag(round = 0): string {
  return JSON.stringify({
    nodes: ROLES.map((role) => ({
      id: role,
      role,
      prompt: `Run the ${role} step for ${RID} (round ${round}); your runtime arguments are above.`,
      requestId: RID,
    })),
    edges: [],
  });
}

/** About `bytes` of prompt text that reads like one (paragraphs, not one repeated byte). */
export function promptText(bytes: number): string {
  const paragraph = "Read src/pages/ProfilePage.tsx and src/store/members.ts before you change " +
    "anything. Keep the existing naming, the service layer and the hooks conventions. " +
    "Write the tech doc to rd/tech-doc-<rid>.md with the sections Context, Approach, Risks and " +
    "Test plan, then register it as an artefact and send a heartbeat after each step.\n\n";
  return paragraph.repeat(Math.ceil(bytes / paragraph.length)).slice(0, bytes);
}
